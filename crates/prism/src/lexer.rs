//! The PRISM lexer: source text to tokens with byte spans. `//` comments and white
//! space are skipped; keywords are reserved (a variable cannot be called `min`).

use crate::diagnostic::{Diagnostic, Span};

/// A token's kind, with its value for literals and identifiers.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name: a variable, constant, formula, module or action.
    Ident(String),
    /// An integer literal.
    Int(i64),
    /// A literal with a fraction or an exponent.
    Double(f64),
    /// A label name in double quotes, without the quotes.
    Str(String),
    /// A reserved word (see [`KEYWORDS`]).
    Keyword(&'static str),
    /// An operator or punctuation: `( ) [ ] { } ; : , ' = != < <= > >= + - * / ! & | => <=> ? .. ->`.
    Punct(&'static str),
    /// The end of the input.
    Eof,
}

impl Tok {
    /// How the token reads in a message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(n) => format!("identifier `{n}`"),
            Tok::Int(v) => format!("number `{v}`"),
            Tok::Double(v) => format!("number `{v}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Keyword(k) => format!("keyword `{k}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it is.
    pub span: Span,
}

/// The reserved words of the PRISM language that this front end knows. As in PRISM,
/// `floor`, `ceil`, `round`, `pow`, `mod` and `log` are not reserved: they name
/// functions only before `(` (`[round]` is an action of QComp's firewire model).
pub const KEYWORDS: &[&str] = &[
    "dtmc",
    "probabilistic",
    "mdp",
    "nondeterministic",
    "ctmc",
    "stochastic",
    "const",
    "int",
    "double",
    "bool",
    "rate",
    "prob",
    "global",
    "module",
    "endmodule",
    "init",
    "endinit",
    "formula",
    "label",
    "rewards",
    "endrewards",
    "true",
    "false",
    "min",
    "max",
    "func",
];

/// Punctuation, longest first so that `<=>` wins over `<=` and `<`.
const PUNCTS: &[&str] = &[
    "<=>", "..", "->", "=>", "<=", ">=", "!=", "(", ")", "[", "]", "{", "}", ";", ":", ",", "'", "=", "<", ">", "+",
    "-", "*", "/", "!", "&", "|", "?",
];

/// Splits `source` into tokens, ending with [`Tok::Eof`].
pub fn lex(source: &str) -> Result<Vec<Token>, Diagnostic> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if source[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if source[i..].starts_with("/*") {
            let end = source[i + 2..]
                .find("*/")
                .ok_or_else(|| Diagnostic::new("unterminated comment", Span::new(i, i + 2)).label("opened here"))?;
            i += end + 4;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &source[start..i];
            let tok = match KEYWORDS.iter().find(|k| **k == word) {
                Some(k) => Tok::Keyword(k),
                None => Tok::Ident(word.to_string()),
            };
            tokens.push(Token { tok, span: Span::new(start, i) });
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            tokens.push(number(source, &mut i)?);
            continue;
        }
        if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] != b'"' {
                return Err(Diagnostic::new("unterminated string", Span::new(start, i)).label("opened here"));
            }
            i += 1;
            tokens.push(Token { tok: Tok::Str(source[start + 1..i - 1].to_string()), span: Span::new(start, i) });
            continue;
        }
        match PUNCTS.iter().find(|p| source[i..].starts_with(**p)) {
            Some(p) => {
                i += p.len();
                tokens.push(Token { tok: Tok::Punct(p), span: Span::new(start, i) });
            }
            None => {
                let ch = source[i..].chars().next().unwrap_or('?');
                return Err(Diagnostic::new(format!("unexpected character `{ch}`"), Span::new(i, i + ch.len_utf8()))
                    .label("not part of the PRISM language"));
            }
        }
    }
    tokens.push(Token { tok: Tok::Eof, span: Span::new(source.len(), source.len()) });
    Ok(tokens)
}

/// A number at `*i`: digits, an optional fraction (not `..`, the range operator) and
/// an optional exponent.
fn number(source: &str, i: &mut usize) -> Result<Token, Diagnostic> {
    let bytes = source.as_bytes();
    let start = *i;
    let digits = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(i);
    let mut real = false;
    if *i < bytes.len() && bytes[*i] == b'.' && bytes.get(*i + 1) != Some(&b'.') {
        real = true;
        *i += 1;
        digits(i);
    }
    if *i < bytes.len() && (bytes[*i] == b'e' || bytes[*i] == b'E') {
        let mut j = *i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            real = true;
            *i = j;
            digits(i);
        }
    }
    let text = &source[start..*i];
    let span = Span::new(start, *i);
    let tok =
        if real {
            Tok::Double(text.parse().map_err(|_| Diagnostic::new(format!("bad number `{text}`"), span))?)
        } else {
            Tok::Int(text.parse().map_err(|_| {
                Diagnostic::new(format!("integer `{text}` is too large"), span).label("at most 2^63 - 1")
            })?)
        };
    Ok(Token { tok, span })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn tokens_and_spans() {
        let toks = lex("x : [0..N] init 1; // comment\n[a] x<=2 -> 0.5e1:(x'=x+1);").unwrap();
        assert_eq!(toks[0].tok, Tok::Ident("x".into()));
        assert_eq!(toks[3].tok, Tok::Int(0));
        assert_eq!(toks[4].tok, Tok::Punct(".."));
        assert_eq!(toks[7].tok, Tok::Keyword("init"));
        let five = toks.iter().find(|t| t.tok == Tok::Double(5.0)).unwrap();
        assert_eq!(five.span, Span::new(42, 47));
        assert!(toks.iter().any(|t| t.tok == Tok::Punct("'")));
    }

    #[test]
    fn longest_punctuation_and_strings() {
        assert_eq!(
            kinds("a<=>b=>c \"goal\" .5"),
            [
                Tok::Ident("a".into()),
                Tok::Punct("<=>"),
                Tok::Ident("b".into()),
                Tok::Punct("=>"),
                Tok::Ident("c".into()),
                Tok::Str("goal".into()),
                Tok::Double(0.5),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn errors() {
        assert_eq!(lex("x # y").unwrap_err().span, Span::new(2, 3));
        assert!(lex("\"open").unwrap_err().message.contains("unterminated"));
        assert!(lex("99999999999999999999").unwrap_err().message.contains("too large"));
    }
}
