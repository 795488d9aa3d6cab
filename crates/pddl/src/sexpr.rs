//! The s-expression layer of PDDL: a hand-written lexer (parentheses, symbols,
//! `?variables`, numbers; `;` comments to the end of the line; names lower-cased, since
//! PDDL is case-insensitive) that builds the tree with an explicit stack, so nesting
//! deeper than [`MAX_DEPTH`] is an error and never a stack overflow of the parsers
//! that walk the tree.

use crate::diagnostic::{Diagnostic, FileKind, Span};

/// The deepest nesting of parentheses accepted.
pub const MAX_DEPTH: usize = 200;

/// A node: a symbol (lower-cased) or a parenthesised list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    /// A symbol, a `?variable` or a number, as written but lower-cased.
    Atom(String, Span),
    /// `( ... )`.
    List(Vec<Sexp>, Span),
}

impl Sexp {
    /// Where the node is (a list: from its `(` to its `)`).
    pub fn span(&self) -> Span {
        match self {
            Sexp::Atom(_, s) | Sexp::List(_, s) => *s,
        }
    }

    /// The symbol, when the node is one.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(text, _) => Some(text),
            Sexp::List(..) => None,
        }
    }

    /// The items, when the node is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List(items, _) => Some(items),
            Sexp::Atom(..) => None,
        }
    }

    /// The first item's symbol when the node is a list that starts with one
    /// (`(and ...)` gives `and`).
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|items| items.first()).and_then(Sexp::atom)
    }
}

/// Reads exactly one top-level s-expression from `source` (comments and whitespace
/// around it allowed).
pub fn read(source: &str, file: FileKind) -> Result<Sexp, Diagnostic> {
    let bytes = source.as_bytes();
    // Open lists: their start and items so far.
    let mut stack: Vec<(usize, Vec<Sexp>)> = Vec::new();
    let mut top: Option<Sexp> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b';' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let node = match c {
            b'(' => {
                if top.is_some() && stack.is_empty() {
                    return Err(trailing(file, i));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(Diagnostic::new(
                        format!("parentheses nested deeper than {MAX_DEPTH} levels"),
                        file,
                        Span::new(i, i + 1),
                    )
                    .label("too deep"));
                }
                stack.push((i, Vec::new()));
                i += 1;
                continue;
            }
            b')' => {
                let Some((start, items)) = stack.pop() else {
                    return Err(Diagnostic::new("unbalanced `)`", file, Span::new(i, i + 1)).label("no `(` to close"));
                };
                i += 1;
                Sexp::List(items, Span::new(start, i))
            }
            _ => {
                let start = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'(' | b')' | b';') {
                    i += 1;
                }
                // The loop stops only at ASCII bytes, so `start..i` is on char boundaries.
                Sexp::Atom(source[start..i].to_lowercase(), Span::new(start, i))
            }
        };
        match stack.last_mut() {
            Some((_, items)) => items.push(node),
            None if top.is_none() => top = Some(node),
            None => return Err(trailing(file, node.span().start as usize)),
        }
    }
    if let Some((start, _)) = stack.last() {
        return Err(Diagnostic::new(
            "unbalanced `(`: the input ends before its `)`",
            file,
            Span::new(*start, start + 1),
        )
        .label("not closed"));
    }
    top.ok_or_else(|| Diagnostic::new("empty input: expected `(define ...)`", file, Span::new(0, 0)))
}

fn trailing(file: FileKind, at: usize) -> Diagnostic {
    Diagnostic::new("unexpected text after the end of the definition", file, Span::new(at, at + 1))
        .label("after the closing `)`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_lists_lowercased_without_comments() {
        let s = read("; c\n(Define (P ?X) 12) ; end", FileKind::Domain).unwrap();
        assert_eq!(s.head(), Some("define"));
        let items = s.list().unwrap();
        assert_eq!(items[1].head(), Some("p"));
        assert_eq!(items[1].list().unwrap()[1].atom(), Some("?x"));
        assert_eq!(items[2].atom(), Some("12"));
        assert_eq!(s.span(), Span::new(4, 22));
    }

    #[test]
    fn unbalanced_and_deep_input_are_errors() {
        let e = read("(a (b)", FileKind::Problem).unwrap_err();
        assert!(e.message.contains("unbalanced `(`"), "{e}");
        assert_eq!(e.span.start, 0);
        let e = read("(a))", FileKind::Problem).unwrap_err();
        assert!(e.message.contains("unbalanced `)`"), "{e}");
        assert_eq!(e.span.start, 3);
        let deep = "(".repeat(100_000);
        let e = read(&deep, FileKind::Domain).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{e}");
        assert!(read("", FileKind::Domain).is_err());
        assert!(read("(a) (b)", FileKind::Domain).is_err());
    }
}
