//! Expressions of the checker: names resolved in their scope (formulas expanded, a
//! renaming applied, constants substituted, variables by index), types checked and
//! converted (`int` to `double` where a real is needed), constant subtrees folded by
//! the evaluator itself, so that folding and running agree. Recursion is bounded by
//! [`MAX_EXPANDED_DEPTH`] and formula expansion by [`MAX_EXPANDED_NODES`].

use std::collections::HashMap;

use crate::ast::{self, BinOp, ExprKind, Func, ModuleBody, UnOp};
use crate::check::{done, Checker, ConstState, Fail, MAX_EXPANDED_DEPTH, MAX_EXPANDED_NODES, R};
use crate::diagnostic::{Diagnostic, Span};
use crate::eval::{Code, TExpr, TKind, Type, Value};

pub(crate) fn lit(v: Value) -> TExpr {
    TExpr { kind: TKind::Lit(v), ty: v.ty() }
}

pub(crate) fn to_double(e: TExpr) -> TExpr {
    match e.kind {
        TKind::Lit(Value::Int(v)) => lit(Value::Double(v as f64)),
        _ if e.ty == Type::Int => TExpr { kind: TKind::ToDouble(Box::new(e)), ty: Type::Double },
        _ => e,
    }
}

pub(crate) fn type_error(expected: &str, found: Type, span: Span) -> Diagnostic {
    Diagnostic::new(format!("type error: expected {expected}, found {}", found.name()), span).label(format!(
        "this is {} {}",
        if found == Type::Int { "an" } else { "a" },
        found.name()
    ))
}
impl Checker<'_> {
    pub(crate) fn bool_expr(&mut self, e: &ast::Expr, rename: Option<&HashMap<String, String>>) -> R<Code> {
        let t = done(self.resolve(e, rename, true, 0), "an expression", e.span)?;
        if t.ty != Type::Bool {
            return Err(type_error("a bool", t.ty, e.span));
        }
        Ok(Code::compile(&t))
    }

    /// Resolves names and types, expanding formulas and folding constants.
    pub(crate) fn resolve(
        &mut self,
        e: &ast::Expr,
        rename: Option<&HashMap<String, String>>,
        vars: bool,
        depth: u32,
    ) -> Result<TExpr, Fail> {
        if depth > MAX_EXPANDED_DEPTH {
            return Err(Diagnostic::new("expression nested too deeply once formulas are expanded", e.span)
                .label(format!("more than {MAX_EXPANDED_DEPTH} levels"))
                .into());
        }
        self.nodes += 1;
        if self.nodes > MAX_EXPANDED_NODES {
            return Err(Diagnostic::new("formulas expand to too large expressions", e.span)
                .label(format!("more than {MAX_EXPANDED_NODES} nodes in all"))
                .into());
        }
        let d = depth + 1;
        let t = match &e.kind {
            ExprKind::Int(v) => lit(Value::Int(*v)),
            ExprKind::Double(v) => lit(Value::Double(*v)),
            ExprKind::Bool(b) => lit(Value::Bool(*b)),
            ExprKind::Ident(name) => return self.ident(name, e.span, rename, vars, depth),
            ExprKind::Unary(op, a) => {
                let a = self.resolve(a, rename, vars, d)?;
                match (op, a.ty) {
                    (UnOp::Not, Type::Bool) => TExpr { kind: TKind::Unary(*op, Box::new(a)), ty: Type::Bool },
                    (UnOp::Neg, Type::Int | Type::Double) => TExpr { ty: a.ty, kind: TKind::Unary(*op, Box::new(a)) },
                    (UnOp::Not, found) => return Err(type_error("a bool", found, e.span).into()),
                    (UnOp::Neg, found) => return Err(type_error("a number", found, e.span).into()),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let (sa, sb) = (a.span, b.span);
                let a = self.resolve(a, rename, vars, d)?;
                let b = self.resolve(b, rename, vars, d)?;
                binary(*op, a, b, sa, sb)?
            }
            ExprKind::Ite(c, a, b) => {
                let sc = c.span;
                let c = self.resolve(c, rename, vars, d)?;
                if c.ty != Type::Bool {
                    return Err(type_error("a bool condition", c.ty, sc).into());
                }
                let sb = b.span;
                let a = self.resolve(a, rename, vars, d)?;
                let b = self.resolve(b, rename, vars, d)?;
                let (a, b, ty) = match (a.ty, b.ty) {
                    (x, y) if x == y => (a, b, x),
                    (Type::Bool, found) | (found, Type::Bool) => {
                        return Err(Diagnostic::new(
                            format!("type error: the branches of `? :` are a bool and {}", found.name()),
                            sb,
                        )
                        .into())
                    }
                    _ => (to_double(a), to_double(b), Type::Double),
                };
                TExpr { kind: TKind::Ite(Box::new(c), Box::new(a), Box::new(b)), ty }
            }
            ExprKind::Call(f, args) => {
                let mut typed = Vec::with_capacity(args.len());
                for a in args {
                    let t = self.resolve(a, rename, vars, d)?;
                    if t.ty == Type::Bool {
                        return Err(type_error("a number", t.ty, a.span).into());
                    }
                    typed.push(t);
                }
                call(*f, typed, args, e.span)?
            }
        };
        self.fold(t, e.span)
    }

    fn ident(
        &mut self,
        name: &str,
        span: Span,
        rename: Option<&HashMap<String, String>>,
        vars: bool,
        depth: u32,
    ) -> Result<TExpr, Fail> {
        if let Some(&body) = self.formulas.get(name) {
            if self.formula_stack.iter().any(|f| f == name) {
                return Err(Diagnostic::new(format!("formula `{name}` uses itself"), span)
                    .label("cyclic formula")
                    .into());
            }
            self.formula_stack.push(name.to_string());
            let r = self.resolve(body, rename, vars, depth + 1);
            self.formula_stack.pop();
            return r;
        }
        let name = rename.and_then(|m| m.get(name)).map_or(name, |s| s.as_str());
        match self.consts.get(name) {
            Some(ConstState::Known(v)) => return Ok(lit(*v)),
            Some(ConstState::Pending) => return Err(Fail::NotYet),
            None => {}
        }
        if let Some(&v) = self.var_index.get(name) {
            if !vars {
                return Err(Diagnostic::new(
                    format!("`{name}` is a variable, but this must be a constant expression"),
                    span,
                )
                .label("a variable")
                .into());
            }
            return Ok(TExpr { kind: TKind::Var(v), ty: self.var_types[v as usize] });
        }
        if !vars
            && self
                .file
                .globals
                .iter()
                .chain(self.file.modules.iter().flat_map(module_vars))
                .any(|v| v.name.text == name)
        {
            return Err(Diagnostic::new(
                format!("`{name}` is a variable, but this must be a constant expression"),
                span,
            )
            .label("a variable")
            .into());
        }
        Err(Diagnostic::new(format!("unknown name `{name}`"), span).label("not a constant, formula or variable").into())
    }

    /// Evaluates a node whose operands are all constants.
    fn fold(&mut self, t: TExpr, span: Span) -> Result<TExpr, Fail> {
        let constant = match &t.kind {
            TKind::Lit(_) | TKind::Var(_) => return Ok(t),
            TKind::ToDouble(a) | TKind::Unary(_, a) => is_lit(a),
            TKind::Binary(_, a, b) => is_lit(a) && is_lit(b),
            TKind::Ite(c, a, b) => is_lit(c) && is_lit(a) && is_lit(b),
            TKind::Call(_, args) => args.iter().all(is_lit),
        };
        if !constant {
            return Ok(t);
        }
        match Code::compile(&t).value(&[], &[], &mut self.stack) {
            Ok(v) => Ok(lit(v)),
            Err(e) => Err(Diagnostic::new(
                format!("evaluating this constant expression: {}", crate::eval::describe_error(&e)),
                span,
            )
            .into()),
        }
    }
}

fn module_vars(m: &ast::Module) -> &[ast::Variable] {
    match &m.body {
        ModuleBody::Plain { variables, .. } => variables,
        ModuleBody::Renamed { .. } => &[],
    }
}

fn is_lit(t: &TExpr) -> bool {
    matches!(t.kind, TKind::Lit(_))
}

fn numeric(t: &TExpr, span: Span) -> R<()> {
    if t.ty == Type::Bool {
        return Err(type_error("a number", t.ty, span));
    }
    Ok(())
}

fn binary(op: BinOp, a: TExpr, b: TExpr, sa: Span, sb: Span) -> R<TExpr> {
    let unify = |a: TExpr, b: TExpr| {
        if a.ty == Type::Double || b.ty == Type::Double {
            (to_double(a), to_double(b))
        } else {
            (a, b)
        }
    };
    let node = |a: TExpr, b: TExpr, ty| TExpr { kind: TKind::Binary(op, Box::new(a), Box::new(b)), ty };
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul => {
            numeric(&a, sa)?;
            numeric(&b, sb)?;
            let (a, b) = unify(a, b);
            let ty = a.ty;
            Ok(node(a, b, ty))
        }
        BinOp::Div => {
            numeric(&a, sa)?;
            numeric(&b, sb)?;
            Ok(node(to_double(a), to_double(b), Type::Double))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            numeric(&a, sa)?;
            numeric(&b, sb)?;
            let (a, b) = unify(a, b);
            Ok(node(a, b, Type::Bool))
        }
        BinOp::Eq | BinOp::Ne => match (a.ty == Type::Bool, b.ty == Type::Bool) {
            (true, true) => Ok(node(a, b, Type::Bool)),
            (false, false) => {
                let (a, b) = unify(a, b);
                Ok(node(a, b, Type::Bool))
            }
            (true, false) => Err(type_error("a bool to compare with", b.ty, sb)),
            (false, true) => Err(type_error("a number to compare with", b.ty, sb)),
        },
        BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff => {
            if a.ty != Type::Bool {
                return Err(type_error("a bool", a.ty, sa));
            }
            if b.ty != Type::Bool {
                return Err(type_error("a bool", b.ty, sb));
            }
            Ok(node(a, b, Type::Bool))
        }
    }
}

fn call(f: Func, args: Vec<TExpr>, spans: &[ast::Expr], span: Span) -> R<TExpr> {
    let arity = |n: usize| -> R<()> {
        if args.len() != n {
            return Err(Diagnostic::new(
                format!("`{}` takes {n} argument{}, {} given", f.name(), if n == 1 { "" } else { "s" }, args.len()),
                span,
            ));
        }
        Ok(())
    };
    let unify = |args: Vec<TExpr>| -> (Vec<TExpr>, Type) {
        if args.iter().any(|a| a.ty == Type::Double) {
            (args.into_iter().map(to_double).collect(), Type::Double)
        } else {
            (args, Type::Int)
        }
    };
    let node = |args, ty| TExpr { kind: TKind::Call(f, args), ty };
    match f {
        Func::Min | Func::Max => {
            if args.len() < 2 {
                return Err(Diagnostic::new(format!("`{}` takes two or more arguments", f.name()), span));
            }
            let (args, ty) = unify(args);
            Ok(node(args, ty))
        }
        Func::Floor | Func::Ceil | Func::Round => {
            arity(1)?;
            Ok(node(args, Type::Int))
        }
        Func::Pow => {
            arity(2)?;
            let (args, ty) = unify(args);
            Ok(node(args, ty))
        }
        Func::Mod => {
            arity(2)?;
            for (a, s) in args.iter().zip(spans) {
                if a.ty != Type::Int {
                    return Err(type_error("an int", a.ty, s.span));
                }
            }
            Ok(node(args, Type::Int))
        }
        Func::Log => {
            arity(2)?;
            Ok(node(args.into_iter().map(to_double).collect(), Type::Double))
        }
    }
}
