//! Tokens of the EXP subset (spec §2.1): strings in double quotes (no escapes),
//! identifiers, `* -> || , ( ) _`, and `(* ... *)` comments (not nested).

use crate::error::{Diagnostic, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A double-quoted string, without its quotes.
    Str(String),
    /// An identifier or a keyword.
    Ident(String),
    Star,
    Arrow,
    Bars,
    Comma,
    LParen,
    RParen,
    Underscore,
    Eof,
}

impl Tok {
    /// How the token reads in messages.
    pub fn show(&self) -> String {
        match self {
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Star => "`*`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Bars => "`||`".into(),
            Tok::Comma => "`,`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Underscore => "`_`".into(),
            Tok::Eof => "the end of the file".into(),
        }
    }
}

/// A token and its byte offset in the text.
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub at: usize,
}

/// A diagnostic at byte `at` of `text`.
pub fn error_at(text: &str, file: &str, at: usize, message: impl Into<String>) -> Diagnostic {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text[start..end].strip_suffix('\r').unwrap_or(&text[start..end]);
    Diagnostic::at(file, line, line_text, at - start, message)
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub fn tokens(text: &str, file: &str) -> Result<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let at = i;
        let tok = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' if bytes.get(i + 1) == Some(&b'*') => {
                let Some(end) = text[i + 2..].find("*)") else {
                    return Err(error_at(text, file, at, "unterminated comment `(*`").into());
                };
                i += 2 + end + 2;
                continue;
            }
            b'"' => {
                let Some(end) = text[i + 1..].find(['"', '\n']).filter(|&e| bytes[i + 1 + e] == b'"') else {
                    return Err(error_at(text, file, at, "unterminated string").into());
                };
                i += end + 2;
                Tok::Str(text[at + 1..at + 1 + end].to_string())
            }
            b'*' => {
                i += 1;
                Tok::Star
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                i += 2;
                Tok::Arrow
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                i += 2;
                Tok::Bars
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                match &text[at..i] {
                    "_" => Tok::Underscore,
                    word => Tok::Ident(word.to_string()),
                }
            }
            _ => {
                let ch = text[at..].chars().next().unwrap_or('?');
                let hint = match ch {
                    '|' | '[' => {
                        " (only `par using` vectors with `||` are supported, not LOTOS/CSP/CCS parallel operators)"
                    }
                    _ => "",
                };
                return Err(error_at(text, file, at, format!("unexpected character `{ch}`{hint}")).into());
            }
        };
        out.push(Token { tok, at });
    }
    out.push(Token { tok: Tok::Eof, at: text.len() });
    Ok(out)
}
