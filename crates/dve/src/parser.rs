//! The DVE parser: tokens to a [`Module`], by recursive descent over the DiVinE 2
//! grammar (see `shared/docs/dve-language.md`), with the reference operator
//! precedences. The first syntax error ends parsing with a diagnostic.

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Span};
use crate::lexer::{lex, Tok, Token};

/// Words that cannot be used as names.
pub const KEYWORDS: &[&str] = &[
    "guard", "sync", "async", "effect", "process", "state", "init", "accept", "commit", "trans", "system", "true",
    "false", "and", "or", "not", "imply", "int", "byte", "const", "channel", "property", "buchi", "genbuchi",
    "streett", "rabin", "muller", "assert",
];

/// How deeply expressions may nest (parentheses, indices, unary operators and binary
/// operator chains all count). BEEM's deepest is about 50; the limit keeps the
/// recursive parser, lowering and evaluation far inside a 2 MiB thread stack.
pub const MAX_DEPTH: u32 = 256;

/// Parses a whole DVE model.
pub fn parse(source: &str) -> Result<Module, Diagnostic> {
    let mut p = Parser { tokens: lex(source)?, pos: 0, depth: 0 };
    p.module()
}

/// Parses a single DVE expression (for command-line invariants and propositions).
pub fn parse_expression(source: &str) -> Result<Expr, Diagnostic> {
    let mut p = Parser { tokens: lex(source)?, pos: 0, depth: 0 };
    let e = p.expr()?;
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected("the end of the expression"));
    }
    Ok(e)
}

type PResult<T> = Result<T, Diagnostic>;

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Current expression nesting depth, bounded by [`MAX_DEPTH`].
    depth: u32,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) if KEYWORDS.contains(&s.as_str()) => format!("keyword `{s}`"),
        Tok::Ident(s) => format!("name `{s}`"),
        Tok::Number(n) => format!("number `{n}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Eof => "end of file".to_string(),
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.tokens[(self.pos + k).min(self.tokens.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        let found = describe(self.peek());
        Diagnostic::new(format!("expected {expected}, found {found}"), self.span())
            .label(format!("expected {expected}"))
    }

    fn is_keyword(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }

    fn eat_keyword(&mut self, kw: &str) -> bool {
        if self.is_keyword(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn keyword(&mut self, kw: &str) -> PResult<Span> {
        if self.is_keyword(kw) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{kw}`")))
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn punct(&mut self, p: &str) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.peek().clone() {
            Tok::Ident(name) if !KEYWORDS.contains(&name.as_str()) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            Tok::Ident(name) => Err(Diagnostic::new(format!("expected {what}, found keyword `{name}`"), self.span())
                .label("keywords cannot be used as names")),
            _ => Err(self.unexpected(what)),
        }
    }

    fn comma_list<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.eat_punct(",") {
            items.push(item(self)?);
        }
        Ok(items)
    }

    // ---- declarations ----

    fn module(&mut self) -> PResult<Module> {
        let mut vars = Vec::new();
        let mut channels = Vec::new();
        loop {
            if self.is_keyword("channel") {
                channels.extend(self.channel_decl()?);
            } else if self.is_keyword("const") || self.is_keyword("int") || self.is_keyword("byte") {
                vars.extend(self.var_decl()?);
            } else {
                break;
            }
        }
        let mut processes = Vec::new();
        while self.is_keyword("process") {
            processes.push(self.process()?);
        }
        if processes.is_empty() {
            return Err(self.unexpected("a declaration or `process`"));
        }
        if !self.is_keyword("system") {
            return Err(self.unexpected("`process` or `system`"));
        }
        let system = self.system()?;
        if self.peek() != &Tok::Eof {
            return Err(self.unexpected("the end of the file after `system ...;`"));
        }
        Ok(Module { vars, channels, processes, system })
    }

    fn var_type(&mut self) -> PResult<VarType> {
        if self.eat_keyword("int") {
            Ok(VarType::Int)
        } else if self.eat_keyword("byte") {
            Ok(VarType::Byte)
        } else {
            Err(self.unexpected("a type (`byte` or `int`)"))
        }
    }

    /// `['const'] type DeclId (',' DeclId)* ';'`
    fn var_decl(&mut self) -> PResult<Vec<VarDecl>> {
        let is_const = self.eat_keyword("const");
        let ty = self.var_type()?;
        let decls = self.comma_list(|p| {
            let name = p.ident("a variable name")?;
            let size = if p.eat_punct("[") {
                let e = p.expr()?;
                p.punct("]")?;
                Some(e)
            } else {
                None
            };
            let init = if p.eat_punct("=") {
                if p.is_punct("{") {
                    let open = p.bump().span;
                    let items = p.comma_list(|p| p.expr())?;
                    let close = p.punct("}")?;
                    Some(Init::List(items, open.to(close)))
                } else {
                    Some(Init::Scalar(p.expr()?))
                }
            } else {
                None
            };
            Ok(VarDecl { is_const, ty, name, size, init })
        })?;
        self.punct(";")?;
        Ok(decls)
    }

    /// `channel a, b;` or `channel {byte, int} c[2], d[0];`
    fn channel_decl(&mut self) -> PResult<Vec<ChannelDecl>> {
        self.keyword("channel")?;
        let types = if self.eat_punct("{") {
            let types = self.comma_list(|p| p.var_type())?;
            self.punct("}")?;
            Some(types)
        } else {
            None
        };
        let decls = self.comma_list(|p| {
            let name = p.ident("a channel name")?;
            let capacity = if types.is_some() {
                p.punct("[")?;
                let e = p.expr()?;
                p.punct("]")?;
                Some(e)
            } else {
                None
            };
            Ok(ChannelDecl { name, types: types.clone(), capacity })
        })?;
        self.punct(";")?;
        Ok(decls)
    }

    fn process(&mut self) -> PResult<ProcessDecl> {
        let start = self.keyword("process")?;
        let name = self.ident("a process name")?;
        self.punct("{")?;
        let mut proc = ProcessDecl {
            name,
            vars: vec![],
            states: vec![],
            init: None,
            commit: vec![],
            accept: vec![],
            asserts: vec![],
            transitions: vec![],
            span: start,
        };
        let mut seen_states = false;
        while !self.is_punct("}") {
            let here = self.span();
            let Tok::Ident(word) = self.peek().clone() else {
                return Err(self.unexpected("a declaration, `state`, `init`, `trans` or `}`"));
            };
            let repeated = |what: &str| Diagnostic::new(format!("`{what}` given twice in one process"), here);
            match word.as_str() {
                "const" | "int" | "byte" if !seen_states => proc.vars.extend(self.var_decl()?),
                "const" | "int" | "byte" => {
                    return Err(Diagnostic::new("local variables must be declared before `state`", here)
                        .label("declaration after the state list"))
                }
                "state" => {
                    if seen_states {
                        return Err(repeated("state"));
                    }
                    self.bump();
                    proc.states = self.comma_list(|p| p.ident("a state name"))?;
                    self.punct(";")?;
                    seen_states = true;
                }
                "init" => {
                    if proc.init.is_some() {
                        return Err(repeated("init"));
                    }
                    self.bump();
                    proc.init = Some(self.ident("a state name")?);
                    self.punct(";")?;
                }
                "commit" | "accept" => {
                    self.bump();
                    // DiVinE 2.4 writes the acceptance condition's kind after
                    // `accept`: `buchi` is the default (the same as none); the others
                    // need other automata.
                    if word == "accept" && !self.eat_keyword("buchi") {
                        if let Some(kind) =
                            ["genbuchi", "muller", "rabin", "streett"].into_iter().find(|k| self.is_keyword(k))
                        {
                            return Err(Diagnostic::new(format!("`accept {kind}` is not supported"), self.span())
                                .label("only Büchi acceptance")
                                .note("write `accept s1, s2;` (or `accept buchi s1, s2;`) for Büchi acceptance"));
                        }
                    }
                    let names = self.comma_list(|p| p.ident("a state name"))?;
                    self.punct(";")?;
                    if word == "commit" { &mut proc.commit } else { &mut proc.accept }.extend(names);
                }
                "assert" => {
                    self.bump();
                    let items = self.comma_list(|p| {
                        let s = p.ident("a state name")?;
                        p.punct(":")?;
                        Ok((s, p.expr()?))
                    })?;
                    self.punct(";")?;
                    proc.asserts.extend(items);
                }
                "trans" => {
                    if !proc.transitions.is_empty() {
                        return Err(repeated("trans"));
                    }
                    self.bump();
                    let mut previous: Option<Ident> = None;
                    proc.transitions = self.comma_list(|p| {
                        let t = p.transition(previous.as_ref())?;
                        previous = Some(t.from.clone());
                        Ok(t)
                    })?;
                    self.punct(";")?;
                }
                _ => return Err(self.unexpected("a declaration, `state`, `init`, `trans` or `}`")),
            }
        }
        let end = self.punct("}")?;
        proc.span = start.to(end);
        if !seen_states {
            return Err(Diagnostic::new(format!("process `{}` has no `state` list", proc.name.name), proc.name.span)
                .label("declared here")
                .note("every process declares its control states: `state a, b;`"));
        }
        Ok(proc)
    }

    /// `[from] -> to { [guard e;] [sync ...;] [effect a, b;] }`
    fn transition(&mut self, previous: Option<&Ident>) -> PResult<TransDecl> {
        let start = self.span();
        let from = if self.is_punct("->") {
            match previous {
                Some(p) => Ident { name: p.name.clone(), span: start },
                None => {
                    return Err(Diagnostic::new("the first transition must name its source state", start)
                        .label("source state missing before `->`"))
                }
            }
        } else {
            self.ident("a source state")?
        };
        self.punct("->")?;
        let to = self.ident("a target state")?;
        self.punct("{")?;
        let mut t = TransDecl { from, to, guard: None, sync: None, effects: vec![], span: start };
        if self.eat_keyword("guard") {
            t.guard = Some(self.expr()?);
            self.punct(";")?;
        }
        if self.is_keyword("sync") {
            t.sync = Some(self.sync()?);
        }
        if self.eat_keyword("effect") {
            t.effects = self.comma_list(|p| {
                let target = p.expr()?;
                p.punct("=")?;
                let value = p.expr()?;
                Ok(Assign { target, value })
            })?;
            self.punct(";")?;
        }
        if !self.is_punct("}") {
            return Err(self.unexpected("`guard`, `sync`, `effect` or `}` (in this order)"));
        }
        let end = self.bump().span;
        t.span = start.to(end);
        Ok(t)
    }

    fn sync(&mut self) -> PResult<Sync> {
        let start = self.keyword("sync")?;
        let channel = self.ident("a channel name")?;
        let dir = if self.eat_punct("!") {
            SyncDir::Send
        } else if self.eat_punct("?") {
            SyncDir::Receive
        } else {
            return Err(self.unexpected("`!` or `?`"));
        };
        let values = if self.is_punct(";") {
            vec![]
        } else if self.eat_punct("{") {
            let v = self.comma_list(|p| p.expr())?;
            self.punct("}")?;
            v
        } else {
            vec![self.expr()?]
        };
        let end = self.punct(";")?;
        Ok(Sync { channel, dir, values, span: start.to(end) })
    }

    fn system(&mut self) -> PResult<SystemDecl> {
        let start = self.keyword("system")?;
        let kind = if self.eat_keyword("async") {
            SystemKind::Async
        } else if self.eat_keyword("sync") {
            SystemKind::Sync
        } else {
            return Err(self.unexpected("`async` or `sync`"));
        };
        let property = if self.eat_keyword("property") { Some(self.ident("a process name")?) } else { None };
        let end = self.punct(";")?;
        Ok(SystemDecl { kind, property, span: start.to(end) })
    }

    // ---- expressions, loosest binding first ----

    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        let saved = self.depth;
        self.deeper()?;
        let e = self.binary_level(0);
        self.depth = saved;
        e
    }

    /// Enters one more level of expression nesting.
    fn deeper(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diagnostic::new(
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
                self.span(),
            )
            .label("nesting limit reached here")
            .note("split the expression, or use fewer parentheses, operators in a chain or unary operators"));
        }
        Ok(())
    }

    fn binary_op(&self, level: usize) -> Option<BinaryOp> {
        use BinaryOp::*;
        let op = match (self.peek(), level) {
            (Tok::Ident(w), 0) if w == "imply" => Imply,
            (Tok::Ident(w), 1) if w == "or" => Or,
            (Tok::Ident(w), 1) if w == "and" => And,
            (Tok::Punct("||"), 1) => Or,
            (Tok::Punct("&&"), 1) => And,
            (Tok::Punct("|"), 2) => BitOr,
            (Tok::Punct("&"), 2) => BitAnd,
            (Tok::Punct("^"), 2) => BitXor,
            (Tok::Punct("=="), 3) => Eq,
            (Tok::Punct("!="), 3) => Ne,
            (Tok::Punct("<"), 4) => Lt,
            (Tok::Punct("<="), 4) => Le,
            (Tok::Punct(">"), 4) => Gt,
            (Tok::Punct(">="), 4) => Ge,
            (Tok::Punct("<<"), 5) => Shl,
            (Tok::Punct(">>"), 5) => Shr,
            (Tok::Punct("+"), 6) => Add,
            (Tok::Punct("-"), 6) => Sub,
            (Tok::Punct("*"), 7) => Mul,
            (Tok::Punct("/"), 7) => Div,
            (Tok::Punct("%"), 7) => Rem,
            _ => return None,
        };
        Some(op)
    }

    fn binary_level(&mut self, level: usize) -> PResult<Expr> {
        if level == 8 {
            return self.unary();
        }
        let saved = self.depth;
        let mut lhs = self.binary_level(level + 1)?;
        while let Some(op) = self.binary_op(level) {
            // A chain builds a left-deep tree: each operator nests one level deeper.
            self.deeper()?;
            self.bump();
            let rhs = self.binary_level(level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span };
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = if self.eat_punct("-") {
            UnaryOp::Neg
        } else if self.eat_punct("~") {
            UnaryOp::BitNot
        } else if self.eat_keyword("not") {
            UnaryOp::Not
        } else if self.is_punct("!") {
            return Err(Diagnostic::new("`!` is not an operator in DVE", start)
                .label("use `not` for negation")
                .note("`!` only appears in `sync channel!value`"));
        } else {
            return self.atom();
        };
        let saved = self.depth;
        self.deeper()?;
        let e = self.unary()?;
        self.depth = saved;
        let span = start.to(e.span);
        Ok(Expr { kind: ExprKind::Unary(op, Box::new(e)), span })
    }

    fn atom(&mut self) -> PResult<Expr> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Number(n) => {
                self.bump();
                Ok(Expr { kind: ExprKind::Number(n), span: start })
            }
            Tok::Ident(w) if w == "true" || w == "false" => {
                self.bump();
                Ok(Expr { kind: ExprKind::Bool(w == "true"), span: start })
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                let end = self.punct(")")?;
                Ok(Expr { kind: e.kind, span: start.to(end) })
            }
            Tok::Ident(_) => {
                let name = self.ident("an expression")?;
                if self.eat_punct("[") {
                    let index = self.expr()?;
                    let end = self.punct("]")?;
                    return Ok(Expr { kind: ExprKind::Index(name, Box::new(index)), span: start.to(end) });
                }
                if self.is_punct(".") && matches!(self.peek_at(1), Tok::Ident(_)) {
                    self.bump();
                    let state = self.ident("a state name")?;
                    let span = start.to(state.span);
                    return Ok(Expr { kind: ExprKind::InState(name, state), span });
                }
                if self.eat_punct("->") {
                    let var = self.ident("a variable name")?;
                    let index = if self.eat_punct("[") {
                        let e = self.expr()?;
                        self.punct("]")?;
                        Some(Box::new(e))
                    } else {
                        None
                    };
                    let span = start.to(self.prev_span());
                    return Ok(Expr { kind: ExprKind::Remote(name, var, index), span });
                }
                Ok(Expr { kind: ExprKind::Name(name), span: start })
            }
            _ => Err(self.unexpected("an expression")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints an expression fully parenthesised.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Number(n) => n.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Index(n, i) => format!("{}[{}]", n.name, show(i)),
            ExprKind::InState(p, s) => format!("{}.{}", p.name, s.name),
            ExprKind::Remote(p, v, None) => format!("{}->{}", p.name, v.name),
            ExprKind::Remote(p, v, Some(i)) => format!("{}->{}[{}]", p.name, v.name, show(i)),
            ExprKind::Unary(op, a) => format!("({op:?} {})", show(a)),
            ExprKind::Binary(op, a, b) => format!("({} {op:?} {})", show(a), show(b)),
        }
    }

    fn p(src: &str) -> String {
        show(&parse_expression(src).unwrap())
    }

    #[test]
    fn precedences_follow_the_reference() {
        assert_eq!(p("a or b and c"), "((a Or b) And c)");
        assert_eq!(p("a imply b or c"), "(a Imply (b Or c))");
        assert_eq!(p("a == b & c"), "((a Eq b) BitAnd c)");
        assert_eq!(p("a < b == c"), "((a Lt b) Eq c)");
        assert_eq!(p("1 << 2 + 3"), "(1 Shl (2 Add 3))");
        assert_eq!(p("a - b - c"), "((a Sub b) Sub c)");
        assert_eq!(p("a + b * c % d"), "(a Add ((b Mul c) Rem d))");
        assert_eq!(p("not a == b"), "((Not a) Eq b)");
        assert_eq!(p("- - ~x"), "(Neg (Neg (BitNot x)))");
        assert_eq!(p("P.s && Q->x[2] || a[i+1]"), "((P.s And Q->x[2]) Or a[(i Add 1)])");
    }

    #[test]
    fn bang_is_not_negation() {
        let e = parse_expression("!x").unwrap_err();
        assert_eq!(e.message, "`!` is not an operator in DVE");
    }

    #[test]
    fn accept_buchi_is_plain_accept_and_other_conditions_are_refused() {
        let plain = parse("process P { state a, b; init a; accept b; } system async;").unwrap();
        let buchi = parse("process P { state a, b; init a; accept buchi b; } system async;").unwrap();
        let names = |m: &Module| m.processes[0].accept.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&plain), ["b"]);
        assert_eq!(names(&buchi), ["b"]);
        let err = parse("process P { state a, b; init a; accept muller (b); } system async;").unwrap_err();
        assert_eq!(err.message, "`accept muller` is not supported");
        assert_eq!(err.span, Span::new(39, 45));
    }

    #[test]
    fn omitted_source_reuses_previous() {
        let m = parse("process P { state a, b; init a; trans a -> b {}, -> a {}; } system async;").unwrap();
        let t = &m.processes[0].transitions;
        assert_eq!((t[1].from.name.as_str(), t[1].to.name.as_str()), ("a", "a"));
    }

    #[test]
    fn syntax_errors_say_what_was_expected() {
        let e = parse("process P { state a; init a; trans a -> a { guard x } } system async;").unwrap_err();
        assert_eq!(e.message, "expected `;`, found `}`");
        let e = parse("byte x; system async;").unwrap_err();
        assert_eq!(e.message, "expected a declaration or `process`, found keyword `system`");
        let e = parse("process byte { state a; } system async;").unwrap_err();
        assert_eq!(e.message, "expected a process name, found keyword `byte`");
    }
}
