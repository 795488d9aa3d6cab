//! LTL formulas as written: the syntax tree [`Ltl`] and its parser [`parse`].
//!
//! Syntax (the usual one, with the spellings of BEEM's `model.xml`, LTL2BA and Spot):
//!
//! | what | spelling | binds |
//! |---|---|---|
//! | constants | `true`, `false` | |
//! | atomic proposition | a name `[a-z_][a-z0-9_]*`, or a DVE expression in double quotes `"P_0.CS"` | |
//! | unary | `!`/`~` not, `G`/`[]`, `F`/`<>`, `X` | tightest |
//! | binary temporal | `U` until, `R`/`V` release, `W` weak until | right to left |
//! | and | `&&`, `&`, `/\` | left to right |
//! | or | `\|\|`, `\|`, `\/` | left to right |
//! | implies | `->`, `=>` | right to left |
//! | equivalent | `<->`, `<=>` | loosest, left to right |
//!
//! Names are lower case and operators upper case, so operators may touch names:
//! `GFp` is `G F p` and `!p1U(p1 && co)` (BEEM's `elevator2`) is `(!p1) U (p1 && co)`.
//! Errors carry the byte range of the offending text; [`ParseError::render`] shows it
//! under the formula with a caret.

use std::fmt;

/// An LTL formula over atomic propositions numbered in order of first appearance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ltl {
    True,
    False,
    Ap(u32),
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    Implies(Box<Ltl>, Box<Ltl>),
    Equiv(Box<Ltl>, Box<Ltl>),
    Next(Box<Ltl>),
    Finally(Box<Ltl>),
    Globally(Box<Ltl>),
    Until(Box<Ltl>, Box<Ltl>),
    Release(Box<Ltl>, Box<Ltl>),
    WeakUntil(Box<Ltl>, Box<Ltl>),
}

/// An atomic proposition as written: a name (defined elsewhere) or a quoted expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    Name(String),
    Expression(String),
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Name(n) => write!(f, "{n}"),
            Atom::Expression(e) => write!(f, "\"{e}\""),
        }
    }
}

/// A parsed formula: the tree and its atomic propositions (`Ltl::Ap(i)` is
/// `atoms[i]`), each with the byte range of its first occurrence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formula {
    pub ltl: Ltl,
    pub atoms: Vec<(Atom, std::ops::Range<usize>)>,
}

/// A syntax error: a message and the byte range of the formula it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} (column {})", self.column)]
pub struct ParseError {
    pub message: String,
    pub span: std::ops::Range<usize>,
    /// 1-based column (in characters) of the start of `span`.
    pub column: usize,
}

impl ParseError {
    fn new(text: &str, message: impl Into<String>, span: std::ops::Range<usize>) -> ParseError {
        let column = text[..span.start].chars().count() + 1;
        ParseError { message: message.into(), span, column }
    }

    /// The message, the formula, and carets under the offending text.
    pub fn render(&self, text: &str) -> String {
        render_at(text, self.span.clone(), &self.message)
    }
}

/// `error: {message}`, then the formula `text` with carets under the byte range `span`
/// (at least one caret: at the end for an empty range there).
pub fn render_at(text: &str, span: std::ops::Range<usize>, message: &str) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let start = text[..span.start].chars().count();
    let width = text[span].chars().count().max(1);
    format!("error: {message}\n  |\n  | {line}\n  | {}{}\n", " ".repeat(start), "^".repeat(width))
}

/// Formulas nest at most this deep, and have at most [`MAX_TOKENS`] tokens: this keeps
/// the recursive parser and translation within a small stack (real formulas nest a few
/// levels and have a few dozen tokens).
pub const MAX_DEPTH: usize = 200;
pub const MAX_TOKENS: usize = 2000;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Implies,
    Equiv,
    Globally,
    Finally,
    Next,
    Until,
    Release,
    WeakUntil,
    True,
    False,
    Name(String),
    Quoted(String),
    End,
}

fn describe(t: &Token) -> String {
    match t {
        Token::LParen => "`(`".into(),
        Token::RParen => "`)`".into(),
        Token::Not => "`!`".into(),
        Token::And => "`&&`".into(),
        Token::Or => "`||`".into(),
        Token::Implies => "`->`".into(),
        Token::Equiv => "`<->`".into(),
        Token::Globally => "`G`".into(),
        Token::Finally => "`F`".into(),
        Token::Next => "`X`".into(),
        Token::Until => "`U`".into(),
        Token::Release => "`R`".into(),
        Token::WeakUntil => "`W`".into(),
        Token::True => "`true`".into(),
        Token::False => "`false`".into(),
        Token::Name(n) => format!("`{n}`"),
        Token::Quoted(e) => format!("\"{e}\""),
        Token::End => "the end of the formula".into(),
    }
}

fn lex(text: &str) -> Result<Vec<(Token, std::ops::Range<usize>)>, ParseError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let two = |s: &str| text[i..].starts_with(s);
        let (token, len) = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' => (Token::LParen, 1),
            b')' => (Token::RParen, 1),
            b'!' | b'~' => (Token::Not, 1),
            b'&' => (Token::And, if two("&&") { 2 } else { 1 }),
            b'|' => (Token::Or, if two("||") { 2 } else { 1 }),
            b'/' if two("/\\") => (Token::And, 2),
            b'\\' if two("\\/") => (Token::Or, 2),
            b'-' if two("->") => (Token::Implies, 2),
            b'=' if two("=>") => (Token::Implies, 2),
            b'<' if two("<->") => (Token::Equiv, 3),
            b'<' if two("<=>") => (Token::Equiv, 3),
            b'<' if two("<>") => (Token::Finally, 2),
            b'[' if two("[]") => (Token::Globally, 2),
            b'G' => (Token::Globally, 1),
            b'F' => (Token::Finally, 1),
            b'X' => (Token::Next, 1),
            b'U' => (Token::Until, 1),
            b'R' | b'V' => (Token::Release, 1),
            b'W' => (Token::WeakUntil, 1),
            b'"' => match text[i + 1..].find('"') {
                Some(end) => {
                    let inner = &text[i + 1..i + 1 + end];
                    if inner.trim().is_empty() {
                        return Err(ParseError::new(text, "empty quoted expression", i..i + end + 2));
                    }
                    (Token::Quoted(inner.to_string()), end + 2)
                }
                None => {
                    return Err(ParseError::new(
                        text,
                        "unterminated quoted expression: a closing `\"` is missing",
                        i..text.len(),
                    ))
                }
            },
            b'a'..=b'z' | b'_' => {
                let len = bytes[i..]
                    .iter()
                    .position(|&b| !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
                    .unwrap_or(bytes.len() - i);
                let word = &text[i..i + len];
                let token = match word {
                    "true" => Token::True,
                    "false" => Token::False,
                    _ => Token::Name(word.to_string()),
                };
                (token, len)
            }
            b'A'..=b'Z' => {
                return Err(ParseError::new(
                    text,
                    format!(
                        "unknown operator `{}`: the operators are G F X U R W; names of atomic propositions are lower case, \
                         and other expressions go in double quotes (\"P_0.CS\")",
                        c as char
                    ),
                    i..i + 1,
                ))
            }
            _ => {
                let ch = text[i..].chars().next().unwrap();
                return Err(ParseError::new(text, format!("unexpected character `{ch}`"), i..i + ch.len_utf8()));
            }
        };
        i += len;
        tokens.push((token, start..i));
        if tokens.len() > MAX_TOKENS {
            return Err(ParseError::new(text, format!("the formula has more than {MAX_TOKENS} tokens"), start..i));
        }
    }
    tokens.push((Token::End, text.len()..text.len()));
    Ok(tokens)
}

struct Parser<'t> {
    text: &'t str,
    tokens: Vec<(Token, std::ops::Range<usize>)>,
    at: usize,
    depth: usize,
    atoms: Vec<(Atom, std::ops::Range<usize>)>,
}

/// Parses an LTL formula.
pub fn parse(text: &str) -> Result<Formula, ParseError> {
    let tokens = lex(text)?;
    let mut p = Parser { text, tokens, at: 0, depth: 0, atoms: Vec::new() };
    let ltl = p.equiv()?;
    if p.peek() != &Token::End {
        return Err(p.error(format!("expected an operator or the end of the formula, found {}", describe(p.peek()))));
    }
    Ok(Formula { ltl, atoms: p.atoms })
}

fn boxed(f: fn(Box<Ltl>, Box<Ltl>) -> Ltl, a: Ltl, b: Ltl) -> Ltl {
    f(Box::new(a), Box::new(b))
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.tokens[self.at].0
    }

    fn span(&self) -> std::ops::Range<usize> {
        self.tokens[self.at].1.clone()
    }

    fn error(&self, message: String) -> ParseError {
        ParseError::new(self.text, message, self.span())
    }

    fn eat(&mut self, t: &Token) -> bool {
        if self.peek() == t {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("the formula nests more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    fn equiv(&mut self) -> Result<Ltl, ParseError> {
        let mut left = self.implies()?;
        while self.eat(&Token::Equiv) {
            left = boxed(Ltl::Equiv, left, self.implies()?);
        }
        Ok(left)
    }

    fn implies(&mut self) -> Result<Ltl, ParseError> {
        let left = self.or()?;
        if self.eat(&Token::Implies) {
            self.enter()?;
            let right = self.implies()?;
            self.depth -= 1;
            return Ok(boxed(Ltl::Implies, left, right));
        }
        Ok(left)
    }

    fn or(&mut self) -> Result<Ltl, ParseError> {
        let mut left = self.and()?;
        while self.eat(&Token::Or) {
            left = boxed(Ltl::Or, left, self.and()?);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Ltl, ParseError> {
        let mut left = self.binary()?;
        while self.eat(&Token::And) {
            left = boxed(Ltl::And, left, self.binary()?);
        }
        Ok(left)
    }

    fn binary(&mut self) -> Result<Ltl, ParseError> {
        let left = self.unary()?;
        let op: fn(Box<Ltl>, Box<Ltl>) -> Ltl = match self.peek() {
            Token::Until => Ltl::Until,
            Token::Release => Ltl::Release,
            Token::WeakUntil => Ltl::WeakUntil,
            _ => return Ok(left),
        };
        self.at += 1;
        self.enter()?;
        let right = self.binary()?;
        self.depth -= 1;
        Ok(boxed(op, left, right))
    }

    fn unary(&mut self) -> Result<Ltl, ParseError> {
        let op: fn(Box<Ltl>) -> Ltl = match self.peek() {
            Token::Not => Ltl::Not,
            Token::Globally => Ltl::Globally,
            Token::Finally => Ltl::Finally,
            Token::Next => Ltl::Next,
            _ => return self.primary(),
        };
        self.at += 1;
        self.enter()?;
        let operand = self.unary()?;
        self.depth -= 1;
        Ok(op(Box::new(operand)))
    }

    fn primary(&mut self) -> Result<Ltl, ParseError> {
        let span = self.span();
        let token = self.peek().clone();
        let atom = match token {
            Token::LParen => {
                let open = self.span();
                self.at += 1;
                self.enter()?;
                let inner = self.equiv()?;
                self.depth -= 1;
                if !self.eat(&Token::RParen) {
                    let found = describe(self.peek());
                    let column = self.text[..open.start].chars().count() + 1;
                    let mut e = self.error(format!("expected `)` to close the `(` at column {column}, found {found}"));
                    if self.peek() != &Token::End {
                        e.message = format!("expected an operator or `)`, found {found}");
                    }
                    return Err(e);
                }
                return Ok(inner);
            }
            Token::True | Token::False => {
                self.at += 1;
                return Ok(if token == Token::True { Ltl::True } else { Ltl::False });
            }
            Token::Name(n) => Atom::Name(n),
            Token::Quoted(e) => Atom::Expression(e),
            other => {
                return Err(self.error(format!(
                "expected a formula (a name, a quoted expression, `true`, `false`, `(`, or a unary operator), found {}",
                describe(&other)
            )))
            }
        };
        self.at += 1;
        let index = match self.atoms.iter().position(|(a, _)| *a == atom) {
            Some(i) => i,
            None => {
                self.atoms.push((atom, span));
                self.atoms.len() - 1
            }
        };
        Ok(Ltl::Ap(index as u32))
    }
}

/// Whether `name` can be written unquoted in a formula (and so defined by `--ap`).
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name != "true"
        && name != "false"
}

impl fmt::Display for Ltl {
    /// Fully parenthesised, with atomic propositions as `p0`, `p1`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ltl::True => write!(f, "true"),
            Ltl::False => write!(f, "false"),
            Ltl::Ap(i) => write!(f, "p{i}"),
            Ltl::Not(a) => write!(f, "!{a}"),
            Ltl::Next(a) => write!(f, "X {a}"),
            Ltl::Finally(a) => write!(f, "F {a}"),
            Ltl::Globally(a) => write!(f, "G {a}"),
            Ltl::And(a, b) => write!(f, "({a} && {b})"),
            Ltl::Or(a, b) => write!(f, "({a} || {b})"),
            Ltl::Implies(a, b) => write!(f, "({a} -> {b})"),
            Ltl::Equiv(a, b) => write!(f, "({a} <-> {b})"),
            Ltl::Until(a, b) => write!(f, "({a} U {b})"),
            Ltl::Release(a, b) => write!(f, "({a} R {b})"),
            Ltl::WeakUntil(a, b) => write!(f, "({a} W {b})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        parse(text).map(|f| f.ltl.to_string()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn precedence_and_spellings() {
        assert_eq!(show("G (wait0 -> F (cs0) )"), "G (p0 -> F p1)");
        assert_eq!(show("GF someoneincs"), "G F p0");
        assert_eq!(show("[]<> a && b"), "(G F p0 && p1)");
        assert_eq!(show("!p1U(p1U(p1&& co))"), "(!p0 U (p0 U (p0 && p1)))");
        assert_eq!(show("a -> b -> c"), "(p0 -> (p1 -> p2))");
        assert_eq!(show("a || b && c"), "(p0 || (p1 && p2))");
        assert_eq!(show("a U b R c"), "(p0 U (p1 R p2))");
        assert_eq!(show("a <-> b <-> c"), "((p0 <-> p1) <-> p2)");
        assert_eq!(show("a W b V c"), "(p0 W (p1 R p2))");
        assert_eq!(show("true U false"), "(true U false)");
        assert_eq!(show("a /\\ b \\/ ~c => X a"), "(((p0 && p1) || !p2) -> X p0)");
    }

    #[test]
    fn atoms_are_numbered_once() {
        let f = parse("G (\"P_0.wait\" -> F \"P_0.CS\") && \"P_0.wait\" U w").unwrap();
        let atoms: Vec<String> = f.atoms.iter().map(|(a, _)| a.to_string()).collect();
        assert_eq!(atoms, ["\"P_0.wait\"", "\"P_0.CS\"", "w"]);
        assert_eq!(f.atoms[1].1, 19..27);
    }

    #[test]
    fn errors_point_into_the_formula() {
        let text = "G (a -> F b";
        let e = parse(text).unwrap_err();
        assert_eq!(e.column, 12);
        assert!(e.message.contains("expected `)` to close the `(` at column 3"), "{}", e.message);
        assert_eq!(e.render(text), "error: expected `)` to close the `(` at column 3, found the end of the formula\n  |\n  | G (a -> F b\n  |            ^\n");
        let e = parse("G (a -> Fb) c").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (13, "expected an operator or the end of the formula, found `c`"));
        assert_eq!(parse("a && Y b").unwrap_err().column, 6);
        assert!(parse("a && Y b").unwrap_err().message.starts_with("unknown operator `Y`"));
        assert_eq!(parse("a && \"x == 1").unwrap_err().span, 5..12);
        assert_eq!(parse("a $ b").unwrap_err().message, "unexpected character `$`");
        assert_eq!(parse("a && ").unwrap_err().column, 6);
        assert_eq!(parse("(a))").unwrap_err().column, 4);
        assert!(parse("\"\"").unwrap_err().message.contains("empty"));
        let deep = format!("{}a{}", "(".repeat(500), ")".repeat(500));
        assert!(parse(&deep).unwrap_err().message.contains("nests more than"));
        assert!(parse(&"!".repeat(300)).unwrap_err().message.contains("nests more than"));
        assert!(parse(&"a && ".repeat(5000)).unwrap_err().message.contains("tokens"));
    }

    #[test]
    fn names() {
        assert!(is_name("cs0") && is_name("_x") && is_name("in_elevator0"));
        assert!(!is_name("Wait") && !is_name("0a") && !is_name("") && !is_name("true") && !is_name("a-b"));
    }
}
