//! Numeric expressions in the parser: [`P::expr`] reads one (numbers, functions, `+`,
//! `-`, `*`, `/`), and [`check_domain`] / [`check_formula`] refuse, once every action
//! is read and so it is known which functions change, what the planner does not
//! support: `(total-cost)` read anywhere but the metric, an action cost that reads a
//! changing fluent (the cost must be static), a division whose operand changes.

use super::{Names, Result, Scope, P};
use crate::ast::{Domain, Effect, Expr, Formula, Op};
use crate::numeric::Ratio;
use crate::sexpr::Sexp;

impl P {
    /// A numeric expression: a number, `(function args...)`, or `(+ a b ...)`,
    /// `(- a b)`, `(- a)`, `(* a b ...)`, `(/ a b)`.
    pub(super) fn expr(&self, node: &Sexp, names: &Names, scope: &Scope) -> Result<Expr> {
        let shape = "expected a number, a function `(name ...)` or `(+|-|*|/ ...)`";
        match node {
            Sexp::Atom(text, span) => Ratio::parse(text).map(|r| Expr::Number(r, *span)).ok_or_else(|| {
                let label =
                    if text.starts_with('?') { "a variable is an object, not a number" } else { "not a number" };
                self.err(shape, *span).label(label)
            }),
            Sexp::List(items, span) => {
                let name = items.first().and_then(Sexp::atom).ok_or_else(|| self.err(shape, *span))?;
                let operands = || items[1..].iter().map(|e| self.expr(e, names, scope)).collect::<Result<Vec<_>>>();
                let op = match (name, items.len() - 1) {
                    ("+", 2..) => Op::Add,
                    ("*", 2..) => Op::Mul,
                    ("-", 2) => Op::Sub,
                    ("-", 1) => Op::Neg,
                    ("/", 2) => Op::Div,
                    ("+" | "-" | "*" | "/", n) => {
                        return Err(self.err(format!("`{name}` with {n} operand(s)"), *span).label(shape));
                    }
                    _ => {
                        let Some(&f) = names.functions.get(name) else {
                            return Err(self
                                .err(format!("unknown function `{name}`"), items[0].span())
                                .label("not declared in `:functions`"));
                        };
                        let arity = names.function_arity[f];
                        if items.len() - 1 != arity {
                            return Err(self.err(
                                format!("wrong number of arguments: `{name}` takes {arity}, given {}", items.len() - 1),
                                *span,
                            ));
                        }
                        let args = items[1..].iter().map(|t| self.term(t, names, scope)).collect::<Result<_>>()?;
                        return Ok(Expr::Fluent(f, args, *span));
                    }
                };
                // n-ary `+` and `*` as nested binary operations.
                let mut operands = operands()?;
                let mut e = operands.remove(0);
                if op == Op::Neg {
                    return Ok(Expr::Op(Op::Neg, vec![e], *span));
                }
                for o in operands {
                    e = Expr::Op(op, vec![e, o], *span);
                }
                Ok(e)
            }
        }
    }
}

/// Marks the fluent functions of `domain` (those an action's numeric effect changes)
/// and checks every expression of its actions.
pub(super) fn check_domain(p: &P, domain: &mut Domain) -> Result<()> {
    for a in &domain.actions {
        mark(&a.effects, &mut domain.functions);
    }
    for a in &domain.actions {
        check_formula(p, domain, &a.precondition)?;
        check_effects(p, domain, &a.effects)?;
    }
    Ok(())
}

fn mark(effects: &[Effect], functions: &mut [crate::ast::Function]) {
    for e in effects {
        match e {
            Effect::Numeric(_, f, ..) => functions[*f].fluent = true,
            Effect::Forall(_, body) | Effect::When(_, body) => mark(body, functions),
            Effect::Add(_) | Effect::Delete(_) | Effect::Cost(_) => {}
        }
    }
}

/// Checks the numeric expressions of a condition (of an action, or a goal).
pub(super) fn check_formula(p: &P, domain: &Domain, f: &Formula) -> Result<()> {
    match f {
        Formula::Atom(_) | Formula::Equal(..) => Ok(()),
        Formula::Not(inner) | Formula::Forall(_, inner) | Formula::Exists(_, inner) => check_formula(p, domain, inner),
        Formula::And(parts) | Formula::Or(parts) => parts.iter().try_for_each(|x| check_formula(p, domain, x)),
        Formula::Imply(a, b) => {
            check_formula(p, domain, a)?;
            check_formula(p, domain, b)
        }
        Formula::Compare(_, a, b) => {
            check_expr(p, domain, a, false)?;
            check_expr(p, domain, b, false)
        }
    }
}

fn check_effects(p: &P, domain: &Domain, effects: &[Effect]) -> Result<()> {
    for e in effects {
        match e {
            Effect::Add(_) | Effect::Delete(_) => {}
            Effect::Forall(_, body) => check_effects(p, domain, body)?,
            Effect::When(c, body) => {
                check_formula(p, domain, c)?;
                check_effects(p, domain, body)?;
            }
            Effect::Cost(value) => check_expr(p, domain, value, true)?,
            Effect::Numeric(_, _, _, value, _) => check_expr(p, domain, value, false)?,
        }
    }
    Ok(())
}

/// Whether `e` reads a fluent function.
fn changes(domain: &Domain, e: &Expr) -> bool {
    match e {
        Expr::Number(..) => false,
        Expr::Fluent(f, ..) => domain.functions[*f].fluent,
        Expr::Op(_, operands, _) => operands.iter().any(|o| changes(domain, o)),
    }
}

/// Checks one expression; `cost`: it is the amount of an `(increase (total-cost) ...)`.
fn check_expr(p: &P, domain: &Domain, e: &Expr, cost: bool) -> Result<()> {
    match e {
        Expr::Number(..) => Ok(()),
        Expr::Fluent(f, _, span) if Some(*f) == domain.total_cost => Err(p
            .err("`(total-cost)` is read only by the metric", *span)
            .label("not supported in a condition or an effect")),
        Expr::Fluent(f, _, span) if cost && domain.functions[*f].fluent => Err(p
            .err(
                format!(
                    "an action cost that reads the changing fluent `{}` is not supported",
                    domain.functions[*f].name
                ),
                *span,
            )
            .label("action costs read static functions only")),
        Expr::Fluent(..) => Ok(()),
        Expr::Op(op, operands, span) => {
            if *op == Op::Div && operands.iter().any(|o| changes(domain, o)) {
                return Err(p
                    .err("division of a changing numeric fluent is not supported", *span)
                    .label("only static values may be divided"));
            }
            operands.iter().try_for_each(|o| check_expr(p, domain, o, cost))
        }
    }
}
