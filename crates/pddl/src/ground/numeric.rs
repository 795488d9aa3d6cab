//! Grounding of numeric expressions, comparisons, numeric effects and action costs.
//!
//! Static functions (no action changes them) are folded exactly ([`Ratio`]) from
//! `:init`; a ground numeric fluent becomes an integer state variable (one state word,
//! allocated on first use, numbered in order of use) holding its value in units of
//! `1 / scale` ([`task::Task::scale`]): the first grounding runs at scale 1 and notes
//! the denominators of the values that meet the fluents (initial values, constants and
//! static values in their expressions and comparisons); when one is not 1, the actions
//! and goals are grounded again at their least common multiple. Factors of products
//! are not scaled: they must be integers. A value that is undefined (a function without
//! a value in `:init`, a division by zero) makes a comparison false, whatever its
//! polarity, and an action whose effect (or cost) reads or changes it inapplicable, as
//! the validator ([`crate::validate`]) holds it. Every expression's magnitude over
//! `i32` fluents must fit an `i64` ([`NumExpr::magnitude`]), so that the search
//! evaluates it without overflow.

use super::{constant, Effects, Grounder};
use crate::ast::{Effect, Expr, Op};
use crate::diagnostic::{Diagnostic, Span};
use crate::numeric::{Assign, Cmp, Ratio};
use crate::task::{self, NumExpr, NumericEffect};

/// A ground expression: a constant, or one over numeric fluents.
enum Num {
    Const(Ratio),
    Dyn(NumExpr),
}

/// Why an expression has no ground value.
pub(super) enum Fold {
    /// It reads an undefined value.
    Undefined,
    /// The planner does not take it.
    Error(Diagnostic),
}

/// The largest magnitude of an expression the search evaluates: far below `i64::MAX`,
/// so that an effect's old value plus its amount cannot overflow either.
const MAGNITUDE: u128 = 1 << 62;

/// The largest [`task::Task::scale`]: values in units of at most a millionth.
const MAX_SCALE: i128 = 1_000_000;

/// The greatest common divisor of two positive numbers.
fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Grounder<'_> {
    fn error(&self, message: impl Into<String>, span: Span) -> Fold {
        Fold::Error(Diagnostic::new(message, self.file, span))
    }

    /// `r` in units of `1 / scale`; at scale 1 (the first grounding), a value that is
    /// not a whole number of them notes its denominator and counts as 0 (the grounding
    /// then runs again at a finer scale).
    fn scaled(&mut self, r: Ratio, span: Span) -> Result<i64, Fold> {
        let scaled = r
            .checked_mul(Ratio::new(self.scale, 1).expect("a scale"))
            .ok_or_else(|| self.error("arithmetic overflow", span))?;
        match scaled.to_integer() {
            Some(v) => Ok(v),
            // A whole number past `i64` is too large at any scale.
            None if scaled.denominator() == 1 => {
                Err(self.error(format!("the value {r} is outside the range of 64-bit integers"), span))
            }
            None if self.scale == 1 => {
                let d = scaled.denominator();
                // The least common multiple (past `i128`, only that it is too large).
                self.needs = (self.needs / gcd(self.needs, d)).checked_mul(d).unwrap_or(i128::MAX);
                self.inexact.get_or_insert((self.file, span));
                Ok(0)
            }
            None => Err(self.error(format!("the value {r} is out of range"), span)),
        }
    }

    /// Grounds again with the numeric fluents in units of `1 / scale`.
    pub(super) fn scale_to(&mut self, scale: i128) -> Result<(), Diagnostic> {
        let (file, span) = self.inexact.expect("a value that needed the scale");
        if scale > MAX_SCALE {
            let unit = if scale == i128::MAX { "finer than 1/1000000".to_string() } else { format!("of 1/{scale}") };
            return Err(Diagnostic::new(
                format!("the numeric values need units {unit} to be held exactly; at most 1/{MAX_SCALE} is supported"),
                file,
                span,
            )
            .label("a value that is not an integer"));
        }
        self.scale = scale;
        Ok(())
    }

    /// The variable of the fluent `(f objects)`; `Undefined` when `:init` gives it no value.
    fn variable(&mut self, f: usize, objects: Vec<usize>, span: Span) -> Result<u32, Fold> {
        if let Some(&v) = self.vars.get(&(f, objects.clone())) {
            return Ok(v);
        }
        let Some(value) = self.problem.function_values.get(&(f, objects.clone())) else {
            return Err(Fold::Undefined);
        };
        let name = self.function_name(f, &objects);
        let value = *value;
        let range = |g: &Self| {
            let unit = if g.scale == 1 { String::new() } else { format!(" (in units of 1/{})", g.scale) };
            g.error(format!("the initial value {value} of `{name}` is outside the range of `i32`{unit}"), span)
        };
        let init = i32::try_from(self.scaled(value, span)?).map_err(|_| range(self))?;
        let v = self.numeric.len() as u32;
        let word = self.numeric_base + v;
        self.numeric.push(task::NumericVar { name, word, init, lower: None, upper: None });
        self.vars.insert((f, objects), v);
        Ok(v)
    }

    fn function_name(&self, f: usize, objects: &[usize]) -> String {
        self.problem.ground_name(&self.domain.functions[f].name, objects)
    }

    fn fold(&mut self, e: &Expr, binding: &[usize]) -> Result<Num, Fold> {
        match e {
            Expr::Number(r, _) => Ok(Num::Const(*r)),
            Expr::Fluent(f, args, span) => {
                let objects: Vec<usize> = args.iter().map(|t| Self::object(binding, t)).collect();
                if self.domain.functions[*f].fluent {
                    let v = self.variable(*f, objects, *span)?;
                    Ok(Num::Dyn(NumExpr::Var(self.numeric_base + v)))
                } else {
                    let value = self.problem.function_values.get(&(*f, objects));
                    value.map(|r| Num::Const(*r)).ok_or(Fold::Undefined)
                }
            }
            Expr::Op(op, operands, span) => {
                let mut folded = Vec::with_capacity(operands.len());
                for o in operands {
                    folded.push(self.fold(o, binding)?);
                }
                if let [Num::Const(a)] = folded[..] {
                    return a.checked_neg().map(Num::Const).ok_or_else(|| self.error("arithmetic overflow", *span));
                }
                if let [Num::Const(a), Num::Const(b)] = folded[..] {
                    let value = match op {
                        Op::Add => a.checked_add(b),
                        Op::Sub => a.checked_sub(b),
                        Op::Mul => a.checked_mul(b),
                        Op::Div if b == Ratio::ZERO => return Err(Fold::Undefined),
                        Op::Div => a.checked_div(b),
                        Op::Neg => unreachable!("one operand"),
                    };
                    return value.map(Num::Const).ok_or_else(|| self.error("arithmetic overflow", *span));
                }
                if *op == Op::Mul {
                    return self.product(folded, *span);
                }
                let mut dynamic = Vec::with_capacity(folded.len());
                for n in folded {
                    dynamic.push(Box::new(self.integer(n, *span)?));
                }
                let e = match (op, dynamic.pop(), dynamic.pop()) {
                    (Op::Neg, Some(a), None) => NumExpr::Neg(a),
                    (Op::Add, Some(b), Some(a)) => NumExpr::Add(a, b),
                    (Op::Sub, Some(b), Some(a)) => NumExpr::Sub(a, b),
                    (Op::Mul, Some(b), Some(a)) => NumExpr::Mul(a, b),
                    // The parser refuses a division of a fluent.
                    _ => return Err(self.error("division of a changing numeric fluent is not supported", *span)),
                };
                if e.magnitude() > MAGNITUDE {
                    return Err(self.error("this expression can exceed the range of 64-bit integers", *span));
                }
                Ok(Num::Dyn(e))
            }
        }
    }

    /// `n` as an expression over the state (in units of `1 / scale`).
    fn integer(&mut self, n: Num, span: Span) -> Result<NumExpr, Fold> {
        match n {
            Num::Dyn(e) => Ok(e),
            Num::Const(r) => self.scaled(r, span).map(NumExpr::Const),
        }
    }

    /// The product of two operands, one of them changing: a factor must be an integer
    /// (it is not scaled), and two changing operands only multiply at scale 1.
    fn product(&mut self, operands: Vec<Num>, span: Span) -> Result<Num, Fold> {
        let mut parts = Vec::with_capacity(2);
        for n in operands {
            parts.push(Box::new(self.factor(n, span)?));
        }
        let (b, a) = (parts.pop().expect("two operands"), parts.pop().expect("two operands"));
        if self.scale > 1 && !matches!(*a, NumExpr::Const(_)) && !matches!(*b, NumExpr::Const(_)) {
            return Err(self.error(
                "a product of changing numeric fluents is not supported when the values are not integers",
                span,
            ));
        }
        let e = NumExpr::Mul(a, b);
        if e.magnitude() > MAGNITUDE {
            return Err(self.error("this expression can exceed the range of 64-bit integers", span));
        }
        Ok(Num::Dyn(e))
    }

    /// A factor of a product with a changing operand: a constant must be an integer.
    fn factor(&self, n: Num, span: Span) -> Result<NumExpr, Fold> {
        match n {
            Num::Dyn(e) => Ok(e),
            Num::Const(r) => r.to_integer().map(NumExpr::Const).ok_or_else(|| {
                self.error(format!("the factor {r} of a changing numeric fluent is not an integer"), span)
            }),
        }
    }

    /// A comparison, read positively or negated: folded when static, false when it
    /// reads an undefined value.
    pub(super) fn compare(&mut self, cmp: Cmp, a: &Expr, b: &Expr, binding: &[usize], positive: bool) -> task::Formula {
        match self.compare_or_fail(cmp, a, b, binding, positive) {
            Ok(f) => f,
            Err(Fold::Undefined) => task::Formula::FALSE,
            Err(Fold::Error(d)) => {
                self.failure.get_or_insert(d);
                task::Formula::FALSE
            }
        }
    }

    fn compare_or_fail(
        &mut self,
        cmp: Cmp,
        a: &Expr,
        b: &Expr,
        binding: &[usize],
        positive: bool,
    ) -> Result<task::Formula, Fold> {
        let (x, y) = (self.fold(a, binding)?, self.fold(b, binding)?);
        if let (Num::Const(x), Num::Const(y)) = (&x, &y) {
            let span = a.span();
            let order = x.checked_cmp(*y).ok_or_else(|| self.error("arithmetic overflow", span))?;
            return Ok(constant(cmp.holds(order) == positive));
        }
        let (x, y) = (self.integer(x, a.span())?, self.integer(y, b.span())?);
        Ok(match (positive, cmp.negated()) {
            (true, _) => task::Formula::Compare(cmp, x, y),
            (false, Some(not)) => task::Formula::Compare(not, x, y),
            (false, None) => task::Formula::Or(vec![
                task::Formula::Compare(Cmp::Less, x.clone(), y.clone()),
                task::Formula::Compare(Cmp::Greater, x, y),
            ]),
        })
    }

    /// The ground numeric effect `effect` (an [`Effect::Numeric`]) into `out`, under
    /// `condition` (`TRUE`: unconditional); an undefined value makes the action
    /// inapplicable, or, under a condition, is an error.
    pub(super) fn numeric_effect(
        &mut self,
        effect: &Effect,
        binding: &[usize],
        condition: &task::Formula,
        out: &mut Effects,
    ) -> Result<(), Diagnostic> {
        let Effect::Numeric(op, f, args, value, span) = effect else { return Ok(()) };
        let objects: Vec<usize> = args.iter().map(|t| Self::object(binding, t)).collect();
        let name = self.function_name(*f, &objects);
        let target = match self.variable(*f, objects, *span) {
            Ok(v) => v,
            Err(Fold::Undefined) if *op == Assign::Assign => {
                return Err(Diagnostic::new(
                    format!("`{name}` has no value in `:init`: assigning it a first value is not supported"),
                    self.file,
                    *span,
                ))
            }
            Err(Fold::Undefined) if *condition == task::Formula::TRUE => {
                out.inapplicable = true;
                return Ok(());
            }
            Err(Fold::Undefined) => return Err(self.undefined_under_condition(&name, *span)),
            Err(Fold::Error(d)) => return Err(d),
        };
        let value = match self.fold(value, binding).and_then(|n| match op {
            // A factor is not scaled; a changing one only at scale 1.
            Assign::ScaleUp if self.scale > 1 && matches!(n, Num::Dyn(_)) => Err(self.error(
                "a `scale-up` by a changing numeric fluent is not supported when the values are not integers",
                *span,
            )),
            Assign::ScaleUp => self.factor(n, *span),
            _ => self.integer(n, *span),
        }) {
            Ok(v) => v,
            Err(Fold::Undefined) if *condition == task::Formula::TRUE => {
                out.inapplicable = true;
                return Ok(());
            }
            Err(Fold::Undefined) => return Err(self.undefined_under_condition(&name, *span)),
            Err(Fold::Error(d)) => return Err(d),
        };
        // The old value plus the amount must fit an `i64` too (a bare constant has no
        // operator whose magnitude `fold` checked).
        if value.magnitude() > MAGNITUDE {
            return Err(Diagnostic::new("this amount can exceed the range of 64-bit integers", self.file, *span));
        }
        let others = out.numeric.iter().chain(out.conditional.iter().flat_map(|c| c.numeric.iter()));
        let beside: Vec<Assign> = others.filter(|e| e.var == target).map(|e| e.op).collect();
        if let Some(alone) = [*op].iter().chain(&beside).find(|o| !o.additive()).filter(|_| !beside.is_empty()) {
            let verb = if *alone == Assign::Assign { "assign" } else { "scale-up" };
            return Err(Diagnostic::new(
                format!(
                    "`{verb}` of `{name}` beside another effect on it in one action is not supported (increases \
                     and decreases of one fluent add up)"
                ),
                self.file,
                *span,
            ));
        }
        // The old value (an `i32`) times the factor must fit an `i64` too.
        if *op == Assign::ScaleUp && value.magnitude() > 1 << 31 {
            return Err(Diagnostic::new("this factor can exceed the range of 32-bit integers", self.file, *span));
        }
        let effect = NumericEffect { var: target, word: self.numeric_base + target, op: *op, value };
        if *condition == task::Formula::TRUE {
            out.numeric.push(effect);
            return Ok(());
        }
        let c = task::Condition::from_formula(condition.clone());
        match out.conditional.iter_mut().find(|x| x.condition == c) {
            Some(x) => x.numeric.push(effect),
            None => out.conditional.push(task::ConditionalEffect {
                condition: c,
                add: vec![],
                delete: vec![],
                numeric: vec![effect],
            }),
        }
        Ok(())
    }

    /// A conditional numeric effect that reads or changes an undefined value.
    fn undefined_under_condition(&self, name: &str, span: crate::diagnostic::Span) -> Diagnostic {
        Diagnostic::new(
            format!("a conditional effect on `{name}` reads or changes an undefined value: not supported"),
            self.file,
            span,
        )
    }

    /// The amount of an `(increase (total-cost) e)`: a non-negative integer; `None`
    /// when it reads an undefined value (the action is then not applicable).
    pub(super) fn cost(&mut self, e: &Expr, binding: &[usize]) -> Result<Option<u64>, Diagnostic> {
        let span = e.span();
        match self.fold(e, binding) {
            Ok(Num::Const(r)) => r.to_integer().and_then(|c| u64::try_from(c).ok()).map(Some).ok_or_else(|| {
                Diagnostic::new(format!("the action cost {r} is not a non-negative integer"), self.file, span)
                    .label("this cost")
            }),
            // The parser refuses a cost that reads a changing fluent.
            Ok(Num::Dyn(_)) => Err(Diagnostic::new("the action cost is not static", self.file, span)),
            Err(Fold::Undefined) => Ok(None),
            Err(Fold::Error(d)) => Err(d),
        }
    }
}
