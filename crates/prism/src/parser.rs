//! The PRISM parser: hand-written recursive descent over the lexer's tokens, for exact
//! spans and messages. It owns the grammar (model type, constants, formulas, globals,
//! modules and renamings, commands, labels, rewards, `init ... endinit`) and the
//! operator precedence of the PRISM manual, lowest first: `? :` (right associative),
//! `=>`, `<=>`, `|`, `&`, `!`, `= !=`, `< <= > >=`, `+ -`, `* /`, unary `-`; all
//! binary operators are left associative. Expressions deeper than [`MAX_DEPTH`] are
//! an error, so neither the parser nor anything walking the tree can run out of stack.

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Span};
use crate::lexer::{lex, Tok, Token};

/// The deepest expression tree the parser accepts (nesting and operator chains alike).
pub const MAX_DEPTH: u32 = 200;

/// Parses a whole model file.
pub fn parse(source: &str) -> Result<ModelFile, Diagnostic> {
    let tokens = lex(source)?;
    let mut p = Parser { tokens, at: 0, nesting: 0 };
    p.file()
}

/// Parses one expression (the whole input), e.g. a `--const` value or a test.
pub fn parse_expression(source: &str) -> Result<Expr, Diagnostic> {
    let tokens = lex(source)?;
    let mut p = Parser { tokens, at: 0, nesting: 0 };
    let e = p.expr()?;
    p.expect_eof()?;
    Ok(e)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// Current recursion depth of the expression functions.
    nesting: u32,
}

type R<T> = Result<T, Diagnostic>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.tokens[self.at.min(self.tokens.len() - 1)].tok
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.at + ahead).min(self.tokens.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.at.min(self.tokens.len() - 1)].span
    }

    /// The span of the token consumed last.
    fn prev_span(&self) -> Span {
        self.tokens[self.at.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.at.min(self.tokens.len() - 1)].clone();
        if self.at < self.tokens.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_keyword(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Keyword(q) if *q == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        let yes = self.is_keyword(k);
        if yes {
            self.bump();
        }
        yes
    }

    fn unexpected(&self, wanted: &str) -> Diagnostic {
        Diagnostic::new(format!("expected {wanted}, found {}", self.peek().describe()), self.span())
            .label(format!("expected {wanted}"))
    }

    fn expect_punct(&mut self, p: &str) -> R<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn expect_keyword(&mut self, k: &str) -> R<Span> {
        if self.is_keyword(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{k}`")))
        }
    }

    fn expect_eof(&mut self) -> R<()> {
        match self.peek() {
            Tok::Eof => Ok(()),
            _ => Err(self.unexpected("the end of the input")),
        }
    }

    fn name(&mut self, what: &str) -> R<Name> {
        match self.peek().clone() {
            Tok::Ident(text) => Ok(Name { text, span: self.bump().span }),
            Tok::Keyword(k) => {
                Err(Diagnostic::new(format!("`{k}` is a reserved word"), self.span()).label(format!("expected {what}")))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn string(&mut self, what: &str) -> R<Name> {
        match self.peek().clone() {
            Tok::Str(text) => Ok(Name { text, span: self.bump().span }),
            _ => Err(self.unexpected(what)),
        }
    }

    fn file(&mut self) -> R<ModelFile> {
        let mut file = ModelFile::default();
        loop {
            let start = self.span();
            match self.peek().clone() {
                Tok::Eof => return Ok(file),
                Tok::Keyword(k) => match k {
                    "dtmc" | "probabilistic" | "mdp" | "nondeterministic" | "ctmc" | "stochastic" => {
                        self.bump();
                        let kind = match k {
                            "dtmc" | "probabilistic" => ModelKind::Dtmc,
                            "mdp" | "nondeterministic" => ModelKind::Mdp,
                            _ => ModelKind::Ctmc,
                        };
                        if let Some((_, first)) = file.kind {
                            return Err(Diagnostic::new("the model type is given twice", start)
                                .label("second model type")
                                .related(first, "first given here"));
                        }
                        file.kind = Some((kind, start));
                    }
                    "const" => file.constants.push(self.constant()?),
                    "global" => {
                        self.bump();
                        file.globals.push(self.variable()?);
                    }
                    "formula" => {
                        self.bump();
                        let name = self.name("a formula name")?;
                        self.expect_punct("=")?;
                        let e = self.expr()?;
                        self.expect_punct(";")?;
                        file.formulas.push((name, e));
                    }
                    "label" => {
                        self.bump();
                        let name = self.string("a label name in double quotes")?;
                        self.expect_punct("=")?;
                        let e = self.expr()?;
                        self.expect_punct(";")?;
                        file.labels.push((name, e));
                    }
                    "module" => file.modules.push(self.module()?),
                    "rewards" => file.rewards.push(self.rewards()?),
                    "init" => {
                        self.bump();
                        let e = self.expr()?;
                        self.expect_keyword("endinit")?;
                        if file.init.is_some() {
                            return Err(Diagnostic::new("a second `init ... endinit` block", start)
                                .label("the model has one already"));
                        }
                        file.init = Some(e);
                    }
                    _ => return Err(self.unexpected("a declaration")),
                },
                _ => return Err(self.unexpected("a declaration")),
            }
        }
    }

    fn constant(&mut self) -> R<Constant> {
        self.expect_keyword("const")?;
        let ty = match self.peek() {
            Tok::Keyword("int") => Some(ConstType::Int),
            Tok::Keyword("double" | "rate" | "prob") => Some(ConstType::Double),
            Tok::Keyword("bool") => Some(ConstType::Bool),
            _ => None,
        };
        if ty.is_some() {
            self.bump();
        }
        let name = self.name("a constant name")?;
        let value = if self.eat_punct("=") { Some(self.expr()?) } else { None };
        self.expect_punct(";")?;
        Ok(Constant { name, ty: ty.unwrap_or(ConstType::Int), value })
    }

    fn variable(&mut self) -> R<Variable> {
        let name = self.name("a variable name")?;
        self.expect_punct(":")?;
        let ty = if self.eat_keyword("bool") {
            VarType::Bool
        } else if self.eat_punct("[") {
            let lo = self.expr()?;
            self.expect_punct("..")?;
            let hi = self.expr()?;
            self.expect_punct("]")?;
            VarType::Range(lo, hi)
        } else if self.is_keyword("int") || self.is_keyword("double") {
            return Err(Diagnostic::new("unbounded variables are not supported", self.span())
                .label("give a range `[lo..hi]` or `bool`"));
        } else {
            return Err(self.unexpected("a range `[lo..hi]` or `bool`"));
        };
        let init = if self.eat_keyword("init") { Some(self.expr()?) } else { None };
        self.expect_punct(";")?;
        Ok(Variable { span: name.span.to(self.prev_span()), name, ty, init })
    }

    fn module(&mut self) -> R<Module> {
        let start = self.expect_keyword("module")?;
        let name = self.name("a module name")?;
        if self.eat_punct("=") {
            let base = self.name("the name of the module to rename")?;
            self.expect_punct("[")?;
            let mut pairs = Vec::new();
            loop {
                let old = self.name("a name to rename")?;
                self.expect_punct("=")?;
                let new = self.name("its new name")?;
                pairs.push((old, new));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("]")?;
            let end = self.expect_keyword("endmodule")?;
            return Ok(Module { name, body: ModuleBody::Renamed { base, pairs }, span: start.to(end) });
        }
        let mut variables = Vec::new();
        let mut commands = Vec::new();
        loop {
            match self.peek() {
                Tok::Ident(_) if commands.is_empty() => variables.push(self.variable()?),
                Tok::Punct("[") => commands.push(self.command()?),
                Tok::Keyword("endmodule") => break,
                _ if commands.is_empty() => return Err(self.unexpected("a variable, a command or `endmodule`")),
                _ => return Err(self.unexpected("a command or `endmodule`")),
            }
        }
        let end = self.expect_keyword("endmodule")?;
        Ok(Module { name, body: ModuleBody::Plain { variables, commands }, span: start.to(end) })
    }

    /// `[` [name] `]`, the action of a command or reward item.
    fn action(&mut self) -> R<Option<Name>> {
        self.expect_punct("[")?;
        let action = if self.is_punct("]") { None } else { Some(self.name("an action name")?) };
        self.expect_punct("]")?;
        Ok(action)
    }

    fn command(&mut self) -> R<Command> {
        let start = self.span();
        let action = self.action()?;
        let guard = self.expr()?;
        self.expect_punct("->")?;
        let mut updates = vec![self.update()?];
        while self.eat_punct("+") {
            updates.push(self.update()?);
        }
        let end = self.expect_punct(";")?;
        Ok(Command { action, guard, updates, span: start.to(end) })
    }

    fn starts_assignment(&self) -> bool {
        self.is_punct("(") && matches!(self.peek_at(1), Tok::Ident(_)) && matches!(self.peek_at(2), Tok::Punct("'"))
    }

    fn update(&mut self) -> R<Update> {
        let start = self.span();
        let weight = if self.starts_assignment()
            || (self.is_keyword("true") && matches!(self.peek_at(1), Tok::Punct(";" | "+")))
        {
            None
        } else {
            let w = self.expr()?;
            self.expect_punct(":")?;
            Some(w)
        };
        let mut assignments = Vec::new();
        if !self.eat_keyword("true") {
            loop {
                if !self.starts_assignment() {
                    return Err(self.unexpected("an assignment `(x' = ...)` or `true`"));
                }
                self.bump();
                let target = self.name("a variable")?;
                self.expect_punct("'")?;
                self.expect_punct("=")?;
                let value = self.expr()?;
                self.expect_punct(")")?;
                assignments.push(Assignment { target, value });
                if !self.eat_punct("&") {
                    break;
                }
            }
        }
        Ok(Update { weight, assignments, span: start.to(self.prev_span()) })
    }

    fn rewards(&mut self) -> R<Rewards> {
        let span = self.expect_keyword("rewards")?;
        let name = if matches!(self.peek(), Tok::Str(_)) { Some(self.string("a name")?) } else { None };
        let mut items = Vec::new();
        while !self.is_keyword("endrewards") {
            if matches!(self.peek(), Tok::Eof) {
                return Err(self.unexpected("`endrewards`"));
            }
            let start = self.span();
            let action = if self.is_punct("[") { Some(self.action()?) } else { None };
            let guard = self.expr()?;
            self.expect_punct(":")?;
            let value = self.expr()?;
            let end = self.expect_punct(";")?;
            items.push(RewardItem { action, guard, value, span: start.to(end) });
        }
        self.bump();
        Ok(Rewards { name, items, span })
    }

    // Expressions, lowest precedence first.

    /// One level deeper in the parser's recursion; an error past [`MAX_DEPTH`].
    fn enter(&mut self) -> R<()> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(Diagnostic::new("expression nested too deeply", self.span())
                .label(format!("more than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn node(&self, kind: ExprKind, span: Span) -> R<Expr> {
        let e = Expr::new(kind, span);
        if e.depth > MAX_DEPTH {
            return Err(Diagnostic::new("expression nested too deeply", span)
                .label(format!("more than {MAX_DEPTH} levels of operators")));
        }
        Ok(e)
    }

    /// A whole expression: `c ? a : b` (right associative) or an implication.
    pub fn expr(&mut self) -> R<Expr> {
        self.enter()?;
        let c = self.binary(0)?;
        let result = if self.eat_punct("?") {
            let a = self.binary(0)?;
            self.expect_punct(":")?;
            let b = self.expr()?;
            let span = c.span.to(b.span);
            self.node(ExprKind::Ite(Box::new(c), Box::new(a), Box::new(b)), span)
        } else {
            Ok(c)
        };
        self.nesting -= 1;
        result
    }

    /// Binary operators of precedence level `level` and above (0 is `=>`).
    fn binary(&mut self, level: usize) -> R<Expr> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("=>", BinOp::Implies)],
            &[("<=>", BinOp::Iff)],
            &[("|", BinOp::Or)],
            &[("&", BinOp::And)],
            // level 4: `!`, handled in `not`
            &[("=", BinOp::Eq), ("!=", BinOp::Ne)],
            &[("<", BinOp::Lt), ("<=", BinOp::Le), (">", BinOp::Gt), (">=", BinOp::Ge)],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("/", BinOp::Div)],
        ];
        let operand = |p: &mut Parser| {
            if level == 3 {
                p.not()
            } else if level + 1 < LEVELS.len() {
                p.binary(level + 1)
            } else {
                p.unary()
            }
        };
        let mut left = operand(self)?;
        loop {
            let op = LEVELS[level].iter().find(|(sym, _)| self.is_punct(sym)).map(|&(_, op)| op);
            let Some(op) = op else { return Ok(left) };
            self.bump();
            let right = operand(self)?;
            let span = left.span.to(right.span);
            left = self.node(ExprKind::Binary(op, Box::new(left), Box::new(right)), span)?;
        }
    }

    /// `!e` (binding looser than comparisons) or an equality.
    fn not(&mut self) -> R<Expr> {
        if self.is_punct("!") {
            let start = self.bump().span;
            self.enter()?;
            let e = self.not()?;
            self.nesting -= 1;
            let span = start.to(e.span);
            return self.node(ExprKind::Unary(UnOp::Not, Box::new(e)), span);
        }
        self.binary(4)
    }

    /// Unary minus or an atom.
    fn unary(&mut self) -> R<Expr> {
        if self.is_punct("-") {
            let start = self.bump().span;
            self.enter()?;
            let e = self.unary()?;
            self.nesting -= 1;
            let span = start.to(e.span);
            return self.node(ExprKind::Unary(UnOp::Neg, Box::new(e)), span);
        }
        self.atom()
    }

    fn atom(&mut self) -> R<Expr> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                self.node(ExprKind::Int(v), start)
            }
            Tok::Double(v) => {
                self.bump();
                self.node(ExprKind::Double(v), start)
            }
            Tok::Keyword("true") => {
                self.bump();
                self.node(ExprKind::Bool(true), start)
            }
            Tok::Keyword("false") => {
                self.bump();
                self.node(ExprKind::Bool(false), start)
            }
            Tok::Ident(n) if matches!(self.peek_at(1), Tok::Punct("(")) && Func::from_name(&n).is_some() => {
                self.bump();
                self.bump();
                self.call(Func::from_name(&n).unwrap_or(Func::Min), start)
            }
            Tok::Ident(n) => {
                self.bump();
                self.node(ExprKind::Ident(n), start)
            }
            Tok::Punct("(") => {
                self.bump();
                let mut e = self.expr()?;
                let end = self.expect_punct(")")?;
                e.span = start.to(end);
                Ok(e)
            }
            Tok::Keyword("func") => {
                self.bump();
                self.expect_punct("(")?;
                let func = match self.peek() {
                    Tok::Keyword(k) => Func::from_name(k),
                    Tok::Ident(n) => Func::from_name(n),
                    _ => None,
                }
                .ok_or_else(|| self.unexpected("a function name"))?;
                self.bump();
                self.expect_punct(",")?;
                self.call(func, start)
            }
            Tok::Keyword(k) if Func::from_name(k).is_some() => {
                self.bump();
                self.expect_punct("(")?;
                self.call(Func::from_name(k).unwrap_or(Func::Min), start)
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// The arguments of a call after its `(`, and the closing `)`.
    fn call(&mut self, func: Func, start: Span) -> R<Expr> {
        let mut args = vec![self.expr()?];
        while self.eat_punct(",") {
            args.push(self.expr()?);
        }
        let end = self.expect_punct(")")?;
        self.node(ExprKind::Call(func, args), start.to(end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression as a fully parenthesised string.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Double(v) => format!("{v:?}"),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Unary(UnOp::Neg, a) => format!("(-{})", show(a)),
            ExprKind::Unary(UnOp::Not, a) => format!("(!{})", show(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
            ExprKind::Ite(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
            ExprKind::Call(f, args) => {
                format!("{}({})", f.name(), args.iter().map(show).collect::<Vec<_>>().join(", "))
            }
        }
    }

    fn expr(s: &str) -> String {
        show(&parse_expression(s).unwrap())
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(expr("a | b & c"), "(a | (b & c))");
        assert_eq!(expr("!a = b & c"), "((!(a = b)) & c)");
        assert_eq!(expr("a => b => c"), "((a => b) => c)");
        assert_eq!(expr("a <=> b => c"), "((a <=> b) => c)");
        assert_eq!(expr("c ? 1 : d ? 2 : 3"), "(c ? 1 : (d ? 2 : 3))");
        assert_eq!(expr("-x*y + 1 - 2 - 3"), "(((((-x) * y) + 1) - 2) - 3)");
        assert_eq!(expr("x+1 < 2*y = (z >= 3)"), "(((x + 1) < (2 * y)) = (z >= 3))");
        assert_eq!(expr("1/2/3"), "((1 / 2) / 3)");
        assert_eq!(
            expr("min(x, 1, 2) + max(a,b) + floor(2.5) + ceil(x) + pow(2, 8)"),
            "((((min(x, 1, 2) + max(a, b)) + floor(2.5)) + ceil(x)) + pow(2, 8))"
        );
        assert_eq!(
            expr("mod(1977, 100) + log(8, 2) + round(x) + func(max, 1, 2)"),
            "(((mod(1977, 100) + log(8, 2)) + round(x)) + max(1, 2))"
        );
        assert_eq!(expr("true | false"), "(true | false)");
        assert_eq!(expr("1e-3 + .5 + 7"), "((0.001 + 0.5) + 7)");
    }

    #[test]
    fn every_construct() {
        let src = r#"
// a comment
dtmc
const int N;
const double p = 0.5;
const bool flag = true;
const K = 3;
const rate r = 2;
formula f = x + 1;
global g : [0..N] init 0;
global h : bool;
label "goal" = x = N;
module m
  x : [0..N] init 1;
  b : bool init false;
  [] x < N -> p : (x'=x+1) & (b'=!b) + 1-p : (x'=x);
  [a] x = N -> true;
  [a] b -> (x'=0);
endmodule
module m2 = m [x=y, b=c, a=d] endmodule
rewards "steps"
  true : 1;
  [a] x > 0 : 2.5;
  [] true : 1;
endrewards
rewards
  x = 0 : 1;
endrewards
init x = 1 endinit
"#;
        let f = parse(src).unwrap();
        assert_eq!(f.kind.map(|k| k.0), Some(ModelKind::Dtmc));
        let consts: Vec<_> = f.constants.iter().map(|c| (c.name.text.as_str(), c.ty, c.value.is_some())).collect();
        assert_eq!(
            consts,
            [
                ("N", ConstType::Int, false),
                ("p", ConstType::Double, true),
                ("flag", ConstType::Bool, true),
                ("K", ConstType::Int, true),
                ("r", ConstType::Double, true)
            ]
        );
        assert_eq!(f.formulas[0].0.text, "f");
        assert_eq!(f.globals.len(), 2);
        assert_eq!(f.globals[1].ty, VarType::Bool);
        assert_eq!(f.labels[0].0.text, "goal");
        assert_eq!(f.modules.len(), 2);
        let ModuleBody::Plain { variables, commands } = &f.modules[0].body else { panic!("plain") };
        assert_eq!(variables.len(), 2);
        assert_eq!(commands.len(), 3);
        assert_eq!(commands[0].updates.len(), 2);
        assert_eq!(commands[0].updates[0].assignments.len(), 2);
        assert!(commands[0].updates[0].weight.is_some());
        assert_eq!(commands[1].action.as_ref().map(|a| a.text.as_str()), Some("a"));
        assert!(commands[1].updates[0].assignments.is_empty() && commands[1].updates[0].weight.is_none());
        assert_eq!(commands[2].updates[0].assignments[0].target.text, "x");
        let ModuleBody::Renamed { base, pairs } = &f.modules[1].body else { panic!("renamed") };
        assert_eq!(base.text, "m");
        assert_eq!(
            pairs.iter().map(|(a, b)| (a.text.as_str(), b.text.as_str())).collect::<Vec<_>>(),
            [("x", "y"), ("b", "c"), ("a", "d")]
        );
        assert_eq!(f.rewards.len(), 2);
        assert_eq!(f.rewards[0].name.as_ref().map(|n| n.text.as_str()), Some("steps"));
        assert_eq!(
            f.rewards[0].items[1].action.as_ref().map(|a| a.as_ref().map(|n| n.text.clone())),
            Some(Some("a".into()))
        );
        assert_eq!(f.rewards[0].items[2].action, Some(None));
        assert!(f.rewards[1].name.is_none());
        assert!(f.init.is_some());
    }

    #[test]
    fn model_type_synonyms() {
        for (word, kind) in [
            ("probabilistic", ModelKind::Dtmc),
            ("nondeterministic", ModelKind::Mdp),
            ("stochastic", ModelKind::Ctmc),
            ("mdp", ModelKind::Mdp),
            ("ctmc", ModelKind::Ctmc),
        ] {
            assert_eq!(parse(word).unwrap().kind.map(|k| k.0), Some(kind));
        }
        assert_eq!(parse("").unwrap().kind, None);
    }

    #[test]
    fn deep_nesting_is_an_error_not_an_overflow() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse_expression(&deep).unwrap_err().message.contains("nested too deeply"));
        let chain = vec!["1"; 100_000].join("+");
        assert!(parse_expression(&chain).unwrap_err().message.contains("nested too deeply"));
        let negations = format!("{}x", "!".repeat(100_000));
        assert!(parse_expression(&negations).unwrap_err().message.contains("nested too deeply"));
        let ok = vec!["1"; 150].join("+");
        assert!(parse_expression(&ok).is_ok());
    }
}
