//! The DVE lexer: source text to tokens with spans.
//!
//! Hand-written (about a hundred lines) so that every error carries an exact span and
//! the DVE quirks are explicit: `//` and `/* */` comments, a backslash ending a line
//! continues it, identifiers may contain `$` and `#` after the first character.

use crate::diagnostic::{Diagnostic, Span};

/// A token kind. Keywords are recognised by the parser from [`Tok::Ident`] text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Number(i64),
    /// Punctuation and operators, as written (`->`, `==`, `{`, ...).
    Punct(&'static str),
    Eof,
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Multi-character operators first, so the longest match wins.
const PUNCTUATION: &[&str] = &[
    "->", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "{", "}", "(", ")", "[", "]", ";", ",", ":", ".", "=", "<",
    ">", "+", "-", "*", "/", "%", "~", "!", "?", "|", "&", "^",
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
        } else if c == b'\\' && matches!(bytes.get(i + 1), Some(b'\n') | Some(b'\r')) {
            i += 1; // line continuation
        } else if source[i..].starts_with("//") {
            i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if source[i..].starts_with("/*") {
            match source[i + 2..].find("*/") {
                Some(n) => i = i + 2 + n + 2,
                None => {
                    return Err(Diagnostic::new("unterminated block comment", Span::new(i, i + 2))
                        .label("comment starts here and never ends")
                        .note("close it with `*/`"))
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$' | b'#')) {
                i += 1;
            }
            tokens.push(Token { tok: Tok::Ident(source[start..i].to_string()), span: Span::new(start, i) });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let span = Span::new(start, i);
            if i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
                return Err(Diagnostic::new("invalid number literal", Span::new(start, i + 1))
                    .label("a number cannot be followed by a letter"));
            }
            let value = source[start..i].parse::<i64>().ok().filter(|v| *v <= i32::MAX as i64);
            match value {
                Some(v) => tokens.push(Token { tok: Tok::Number(v), span }),
                None => {
                    return Err(
                        Diagnostic::new("number literal too large", span).label(format!("larger than {}", i32::MAX))
                    )
                }
            }
        } else if let Some(p) = PUNCTUATION.iter().find(|p| source[i..].starts_with(**p)) {
            tokens.push(Token { tok: Tok::Punct(p), span: Span::new(i, i + p.len()) });
            i += p.len();
        } else {
            let ch = source[i..].chars().next().unwrap_or('?');
            return Err(Diagnostic::new(format!("unexpected character `{ch}`"), Span::new(i, i + ch.len_utf8()))
                .label("not part of the DVE language"));
        }
    }
    tokens.push(Token { tok: Tok::Eof, span: Span::new(bytes.len(), bytes.len()) });
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn operators_comments_and_continuations() {
        assert_eq!(
            kinds("a->b /* c */ <= 12 // x\n x$1 \\\n !="),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("->"),
                Tok::Ident("b".into()),
                Tok::Punct("<="),
                Tok::Number(12),
                Tok::Ident("x$1".into()),
                Tok::Punct("!="),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn errors_point_at_the_culprit() {
        assert_eq!(lex("x @").unwrap_err().span, Span::new(2, 3));
        assert_eq!(lex("/* open").unwrap_err().message, "unterminated block comment");
        assert_eq!(lex("99999999999").unwrap_err().message, "number literal too large");
        assert_eq!(lex("12ab").unwrap_err().message, "invalid number literal");
        assert!(lex("é").is_err());
    }
}
