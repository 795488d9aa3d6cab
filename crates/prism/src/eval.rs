//! Typed expressions and their evaluation: the checker's typed tree ([`TExpr`]), its
//! compilation to a flat stack code ([`Code`]) and the evaluator, a loop over that code
//! with an explicit value stack (no recursion, whatever the expression).
//!
//! Values are `u64` words on the stack: an `int` is an `i64`, a `double` its IEEE
//! bits, a `bool` 0 or 1; every operation is typed by the checker, so the evaluator
//! never looks at a type. Semantics follow PRISM: `/` is real division (a division by
//! zero gives an infinity or NaN, as in Java), `mod(i, n)` is an error for `n = 0` and
//! non-negative for `n > 0`, `pow` of integers is an integer (a negative exponent is an
//! error), `floor`, `ceil` and `round` (ties up) give integers, `log(x, b)` is
//! `ln x / ln b`, `&`, `|`, `=>` and `? :` evaluate lazily. Integer overflow and
//! converting a non-finite number to an integer are errors, never wrapped.

use warpcheck_model::{EvalError, Slot};

use crate::ast::{BinOp, Func, UnOp};

/// The three types of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `int`
    Int,
    /// `double`
    Double,
    /// `bool`
    Bool,
}

impl Type {
    /// The type's name.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::Double => "double",
            Type::Bool => "bool",
        }
    }
}

/// A value of one of the three types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A real.
    Double(f64),
    /// A Boolean.
    Bool(bool),
}

impl Value {
    /// Its type.
    pub fn ty(self) -> Type {
        match self {
            Value::Int(_) => Type::Int,
            Value::Double(_) => Type::Double,
            Value::Bool(_) => Type::Bool,
        }
    }

    /// The stack word of the value.
    pub fn raw(self) -> u64 {
        match self {
            Value::Int(v) => v as u64,
            Value::Double(v) => v.to_bits(),
            Value::Bool(b) => b as u64,
        }
    }

    /// The value of a stack word of type `ty`.
    pub fn from_raw(raw: u64, ty: Type) -> Value {
        match ty {
            Type::Int => Value::Int(raw as i64),
            Type::Double => Value::Double(f64::from_bits(raw)),
            Type::Bool => Value::Bool(raw != 0),
        }
    }

    /// The value as a real (integers converted).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Double(v) => v,
            Value::Bool(b) => b as u8 as f64,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Double(v) => write!(f, "{v}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A typed expression node, as the checker builds it.
#[derive(Clone, Debug, PartialEq)]
pub enum TKind {
    /// A constant.
    Lit(Value),
    /// A variable, by index.
    Var(u32),
    /// An `int` used as a `double`.
    ToDouble(Box<TExpr>),
    /// `-e` or `!e`.
    Unary(UnOp, Box<TExpr>),
    /// `a op b`; both operands have the same type (the checker converts).
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    /// `c ? a : b`; both branches have the node's type.
    Ite(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// `f(args)`; the arguments of `min`, `max` and `pow` have the same type.
    Call(Func, Vec<TExpr>),
}

/// A typed expression: a node and its result type.
#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    /// The node.
    pub kind: TKind,
    /// Its type.
    pub ty: Type,
}

/// One instruction of the stack code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Push a word.
    Const(u64),
    /// Push a variable's value (an `int`; a Boolean is 0 or 1).
    Var(u32),
    /// Integer negation.
    NegI,
    /// Real negation.
    NegD,
    /// Boolean negation.
    Not,
    /// `int` to `double`.
    ToDouble,
    /// Integer arithmetic and comparisons (`b` on top of `a`).
    Int(IntOp),
    /// Real arithmetic and comparisons.
    Double(DoubleOp),
    /// Pop; jump if false.
    JumpIfFalse(u32),
    /// Jump.
    Jump(u32),
    /// If the top is false jump, keeping it; else pop it (`&`).
    AndJump(u32),
    /// If the top is true jump, keeping it; else pop it (`|`).
    OrJump(u32),
}

/// Binary operations on integers (and Booleans, as 0 and 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `pow`
    Pow,
    /// `mod`
    Mod,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Operations on reals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoubleOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `pow`
    Pow,
    /// `log`
    Log,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `floor` (unary, to `int`)
    Floor,
    /// `ceil` (unary, to `int`)
    Ceil,
    /// `round` (unary, to `int`, ties up)
    Round,
}

/// Where a variable lives in the state vector and the value its zero stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarSlot {
    /// The packed field.
    pub slot: Slot,
    /// The variable's lower bound (a field holds `value - lo`).
    pub lo: i64,
}

impl VarSlot {
    /// The variable's value in `state`.
    #[inline]
    pub fn get(&self, state: &[u32]) -> i64 {
        self.slot.get(state) as i64 + self.lo
    }
}

/// A compiled expression and its result type.
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    /// The instructions.
    pub ops: Vec<Op>,
    /// The type of the value it leaves.
    pub ty: Type,
}

impl Code {
    /// Compiles a typed expression (recursion bounded by the checker's depth limit).
    pub fn compile(e: &TExpr) -> Code {
        let mut ops = Vec::new();
        emit(e, &mut ops);
        Code { ops, ty: e.ty }
    }

    /// The constant value, when the code is one.
    pub fn constant(&self) -> Option<Value> {
        match self.ops.as_slice() {
            [Op::Const(raw)] => Some(Value::from_raw(*raw, self.ty)),
            _ => None,
        }
    }

    /// Evaluates on `state`; `stack` is scratch space reused between calls.
    #[inline]
    pub fn eval(&self, vars: &[VarSlot], state: &[u32], stack: &mut Vec<u64>) -> Result<u64, EvalError> {
        if let [Op::Const(raw)] = self.ops.as_slice() {
            return Ok(*raw);
        }
        run(&self.ops, vars, state, stack)
    }

    /// Evaluates a Boolean expression.
    #[inline]
    pub fn holds(&self, vars: &[VarSlot], state: &[u32], stack: &mut Vec<u64>) -> Result<bool, EvalError> {
        Ok(self.eval(vars, state, stack)? != 0)
    }

    /// Evaluates a numeric expression as a real.
    #[inline]
    pub fn real(&self, vars: &[VarSlot], state: &[u32], stack: &mut Vec<u64>) -> Result<f64, EvalError> {
        let raw = self.eval(vars, state, stack)?;
        Ok(match self.ty {
            Type::Double => f64::from_bits(raw),
            _ => raw as i64 as f64,
        })
    }

    /// Evaluates to a typed value.
    pub fn value(&self, vars: &[VarSlot], state: &[u32], stack: &mut Vec<u64>) -> Result<Value, EvalError> {
        Ok(Value::from_raw(self.eval(vars, state, stack)?, self.ty))
    }
}

fn emit(e: &TExpr, ops: &mut Vec<Op>) {
    match &e.kind {
        TKind::Lit(v) => ops.push(Op::Const(v.raw())),
        TKind::Var(v) => ops.push(Op::Var(*v)),
        TKind::ToDouble(a) => {
            emit(a, ops);
            ops.push(Op::ToDouble);
        }
        TKind::Unary(op, a) => {
            emit(a, ops);
            ops.push(match (op, a.ty) {
                (UnOp::Not, _) => Op::Not,
                (UnOp::Neg, Type::Double) => Op::NegD,
                (UnOp::Neg, _) => Op::NegI,
            });
        }
        TKind::Binary(op, a, b) => {
            let lazy = |ops: &mut Vec<Op>, jump: fn(u32) -> Op| {
                let at = ops.len();
                ops.push(jump(0));
                emit(b, ops);
                ops[at] = jump(ops.len() as u32);
            };
            emit(a, ops);
            match op {
                BinOp::And => return lazy(ops, Op::AndJump),
                BinOp::Or => return lazy(ops, Op::OrJump),
                BinOp::Implies => {
                    ops.push(Op::Not);
                    return lazy(ops, Op::OrJump);
                }
                _ => {}
            }
            emit(b, ops);
            let double = a.ty == Type::Double;
            let (i, d) = match op {
                BinOp::Add => (IntOp::Add, DoubleOp::Add),
                BinOp::Sub => (IntOp::Sub, DoubleOp::Sub),
                BinOp::Mul => (IntOp::Mul, DoubleOp::Mul),
                BinOp::Div => (IntOp::Eq, DoubleOp::Div),
                BinOp::Lt => (IntOp::Lt, DoubleOp::Lt),
                BinOp::Le => (IntOp::Le, DoubleOp::Le),
                BinOp::Gt => (IntOp::Gt, DoubleOp::Gt),
                BinOp::Ge => (IntOp::Ge, DoubleOp::Ge),
                BinOp::Eq | BinOp::Iff => (IntOp::Eq, DoubleOp::Eq),
                BinOp::Ne => (IntOp::Ne, DoubleOp::Ne),
                BinOp::And | BinOp::Or | BinOp::Implies => (IntOp::Eq, DoubleOp::Eq),
            };
            ops.push(if double || *op == BinOp::Div { Op::Double(d) } else { Op::Int(i) });
        }
        TKind::Ite(c, a, b) => {
            emit(c, ops);
            let jump_else = ops.len();
            ops.push(Op::JumpIfFalse(0));
            emit(a, ops);
            let jump_end = ops.len();
            ops.push(Op::Jump(0));
            ops[jump_else] = Op::JumpIfFalse(ops.len() as u32);
            emit(b, ops);
            ops[jump_end] = Op::Jump(ops.len() as u32);
        }
        TKind::Call(f, args) => {
            let double = args.first().is_some_and(|a| a.ty == Type::Double);
            let (i, d) = match f {
                Func::Min => (IntOp::Min, DoubleOp::Min),
                Func::Max => (IntOp::Max, DoubleOp::Max),
                Func::Pow => (IntOp::Pow, DoubleOp::Pow),
                Func::Mod => (IntOp::Mod, DoubleOp::Eq),
                Func::Log => (IntOp::Eq, DoubleOp::Log),
                Func::Floor | Func::Ceil | Func::Round => {
                    for a in args {
                        emit(a, ops);
                    }
                    if double {
                        ops.push(Op::Double(match f {
                            Func::Floor => DoubleOp::Floor,
                            Func::Ceil => DoubleOp::Ceil,
                            _ => DoubleOp::Round,
                        }));
                    }
                    return;
                }
            };
            let op = if double || *f == Func::Log { Op::Double(d) } else { Op::Int(i) };
            for (k, a) in args.iter().enumerate() {
                emit(a, ops);
                if k > 0 {
                    ops.push(op);
                }
            }
        }
    }
}

/// An evaluation error in PRISM's words (the only integer division is `mod`).
pub fn describe_error(e: &EvalError) -> String {
    match e {
        EvalError::DivisionByZero => "modulo by zero".to_string(),
        _ => e.to_string(),
    }
}

fn arithmetic(what: &'static str) -> EvalError {
    EvalError::Arithmetic { what }
}

const OVERFLOW: &str = "integer overflow";

fn to_int(x: f64) -> Result<u64, EvalError> {
    if x.is_finite() && x >= i64::MIN as f64 && x < i64::MAX as f64 {
        Ok(x as i64 as u64)
    } else {
        Err(arithmetic("a value that is not a finite number in the range of int converted to an integer"))
    }
}

fn int_op(op: IntOp, a: i64, b: i64) -> Result<u64, EvalError> {
    let v = match op {
        IntOp::Add => a.checked_add(b).ok_or(arithmetic(OVERFLOW))?,
        IntOp::Sub => a.checked_sub(b).ok_or(arithmetic(OVERFLOW))?,
        IntOp::Mul => a.checked_mul(b).ok_or(arithmetic(OVERFLOW))?,
        IntOp::Min => a.min(b),
        IntOp::Max => a.max(b),
        IntOp::Pow => {
            if b < 0 {
                return Err(arithmetic("negative exponent of an integer power"));
            }
            let e = u32::try_from(b).map_err(|_| arithmetic(OVERFLOW))?;
            a.checked_pow(e).ok_or(arithmetic(OVERFLOW))?
        }
        IntOp::Mod => {
            if b == 0 {
                return Err(EvalError::DivisionByZero);
            }
            let r = a.checked_rem(b).ok_or(arithmetic(OVERFLOW))?;
            if r < 0 {
                r.checked_add(b.checked_abs().ok_or(arithmetic(OVERFLOW))?).ok_or(arithmetic(OVERFLOW))?
            } else {
                r
            }
        }
        IntOp::Eq => (a == b) as i64,
        IntOp::Ne => (a != b) as i64,
        IntOp::Lt => (a < b) as i64,
        IntOp::Le => (a <= b) as i64,
        IntOp::Gt => (a > b) as i64,
        IntOp::Ge => (a >= b) as i64,
    };
    Ok(v as u64)
}

fn double_op(op: DoubleOp, a: f64, b: f64) -> u64 {
    let bool = |x: bool| x as u64;
    match op {
        DoubleOp::Add => (a + b).to_bits(),
        DoubleOp::Sub => (a - b).to_bits(),
        DoubleOp::Mul => (a * b).to_bits(),
        DoubleOp::Div => (a / b).to_bits(),
        DoubleOp::Min => (if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) }).to_bits(),
        DoubleOp::Max => (if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }).to_bits(),
        DoubleOp::Pow => a.powf(b).to_bits(),
        DoubleOp::Log => (a.ln() / b.ln()).to_bits(),
        DoubleOp::Eq => bool(a == b),
        DoubleOp::Ne => bool(a != b),
        DoubleOp::Lt => bool(a < b),
        DoubleOp::Le => bool(a <= b),
        DoubleOp::Gt => bool(a > b),
        DoubleOp::Ge => bool(a >= b),
        DoubleOp::Floor | DoubleOp::Ceil | DoubleOp::Round => 0,
    }
}

/// Runs stack code. Well-formed code (from [`Code::compile`]) never underflows the
/// stack; malformed code reads zeros rather than panicking.
fn run(code: &[Op], vars: &[VarSlot], state: &[u32], stack: &mut Vec<u64>) -> Result<u64, EvalError> {
    stack.clear();
    let mut pc = 0usize;
    let pop = |stack: &mut Vec<u64>| stack.pop().unwrap_or(0);
    while let Some(&op) = code.get(pc) {
        pc += 1;
        match op {
            Op::Const(raw) => stack.push(raw),
            Op::Var(v) => stack.push(vars.get(v as usize).map_or(0, |s| s.get(state)) as u64),
            Op::NegI => {
                let a = pop(stack) as i64;
                stack.push(a.checked_neg().ok_or(arithmetic(OVERFLOW))? as u64);
            }
            Op::NegD => {
                let a = f64::from_bits(pop(stack));
                stack.push((-a).to_bits());
            }
            Op::Not => {
                let a = pop(stack);
                stack.push((a == 0) as u64);
            }
            Op::ToDouble => {
                let a = pop(stack) as i64;
                stack.push((a as f64).to_bits());
            }
            Op::Int(op) => {
                let b = pop(stack) as i64;
                let a = pop(stack) as i64;
                stack.push(int_op(op, a, b)?);
            }
            Op::Double(op @ (DoubleOp::Floor | DoubleOp::Ceil | DoubleOp::Round)) => {
                let a = f64::from_bits(pop(stack));
                let r = match op {
                    DoubleOp::Floor => a.floor(),
                    DoubleOp::Ceil => a.ceil(),
                    _ => (a + 0.5).floor(),
                };
                stack.push(to_int(r)?);
            }
            Op::Double(op) => {
                let b = f64::from_bits(pop(stack));
                let a = f64::from_bits(pop(stack));
                stack.push(double_op(op, a, b));
            }
            Op::JumpIfFalse(to) => {
                if pop(stack) == 0 {
                    pc = to as usize;
                }
            }
            Op::Jump(to) => pc = to as usize,
            Op::AndJump(to) => {
                if stack.last() == Some(&0) {
                    pc = to as usize;
                } else {
                    stack.pop();
                }
            }
            Op::OrJump(to) => {
                if stack.last().is_some_and(|&v| v != 0) {
                    pc = to as usize;
                } else {
                    stack.pop();
                }
            }
        }
    }
    Ok(pop(stack))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(v: Value) -> TExpr {
        TExpr { kind: TKind::Lit(v), ty: v.ty() }
    }

    fn bin(op: BinOp, a: TExpr, b: TExpr, ty: Type) -> TExpr {
        TExpr { kind: TKind::Binary(op, Box::new(a), Box::new(b)), ty }
    }

    fn call(f: Func, args: Vec<TExpr>, ty: Type) -> TExpr {
        TExpr { kind: TKind::Call(f, args), ty }
    }

    fn run_value(e: &TExpr) -> Result<Value, EvalError> {
        Code::compile(e).value(&[], &[], &mut Vec::new())
    }

    #[test]
    fn functions_follow_prism() {
        let i = |v| lit(Value::Int(v));
        let d = |v| lit(Value::Double(v));
        assert_eq!(run_value(&call(Func::Mod, vec![i(-7), i(3)], Type::Int)), Ok(Value::Int(2)));
        assert_eq!(run_value(&call(Func::Mod, vec![i(7), i(0)], Type::Int)), Err(EvalError::DivisionByZero));
        assert_eq!(run_value(&call(Func::Pow, vec![i(2), i(10)], Type::Int)), Ok(Value::Int(1024)));
        assert!(run_value(&call(Func::Pow, vec![i(2), i(-1)], Type::Int)).is_err());
        assert!(run_value(&call(Func::Pow, vec![i(2), i(64)], Type::Int)).is_err());
        assert_eq!(run_value(&call(Func::Floor, vec![d(-1.5)], Type::Int)), Ok(Value::Int(-2)));
        assert_eq!(run_value(&call(Func::Ceil, vec![d(1.2)], Type::Int)), Ok(Value::Int(2)));
        assert_eq!(run_value(&call(Func::Round, vec![d(-1.5)], Type::Int)), Ok(Value::Int(-1)));
        assert!(run_value(&call(Func::Floor, vec![d(f64::INFINITY)], Type::Int)).is_err());
        assert_eq!(run_value(&call(Func::Log, vec![d(8.0), d(2.0)], Type::Double)), Ok(Value::Double(3.0)));
        assert_eq!(run_value(&call(Func::Max, vec![i(1), i(5), i(3)], Type::Int)), Ok(Value::Int(5)));
        assert_eq!(run_value(&bin(BinOp::Div, d(1.0), d(0.0), Type::Double)), Ok(Value::Double(f64::INFINITY)));
        assert!(run_value(&bin(BinOp::Add, i(i64::MAX), i(1), Type::Int)).is_err());
    }

    #[test]
    fn lazy_boolean_operators() {
        let b = |v| lit(Value::Bool(v));
        // `false & mod(1, 0) = 0` never evaluates the modulo.
        let boom = bin(
            BinOp::Eq,
            call(Func::Mod, vec![lit(Value::Int(1)), lit(Value::Int(0))], Type::Int),
            lit(Value::Int(0)),
            Type::Bool,
        );
        assert_eq!(run_value(&bin(BinOp::And, b(false), boom.clone(), Type::Bool)), Ok(Value::Bool(false)));
        assert_eq!(run_value(&bin(BinOp::Or, b(true), boom.clone(), Type::Bool)), Ok(Value::Bool(true)));
        assert_eq!(run_value(&bin(BinOp::Implies, b(false), boom.clone(), Type::Bool)), Ok(Value::Bool(true)));
        assert_eq!(run_value(&bin(BinOp::Implies, b(true), b(false), Type::Bool)), Ok(Value::Bool(false)));
        assert!(run_value(&bin(BinOp::And, b(true), boom, Type::Bool)).is_err());
        let ite = TExpr {
            kind: TKind::Ite(Box::new(b(false)), Box::new(lit(Value::Int(1))), Box::new(lit(Value::Int(2)))),
            ty: Type::Int,
        };
        assert_eq!(run_value(&ite), Ok(Value::Int(2)));
    }
}
