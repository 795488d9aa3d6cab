//! Errors of the PDDL front end: a message, the file (domain or problem) and the source
//! span it points at, rendered rustc-style (file, line, column, the source line and a
//! caret). Adapted from the PRISM front end's diagnostics, with the file added since a
//! planning task comes in two files.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// A byte range of one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span of bytes `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Which of the two input files a span belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The domain file.
    Domain,
    /// The problem file.
    Problem,
}

/// An error in a domain or problem: what and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    /// What is wrong, in one line.
    pub message: String,
    /// The file the span is in.
    pub file: FileKind,
    /// Where.
    pub span: Span,
    /// Text under the caret.
    pub label: String,
}

impl Diagnostic {
    /// An error at `span` of `file`.
    pub fn new(message: impl Into<String>, file: FileKind, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), file, span, label: String::new() }
    }

    /// Sets the text under the caret.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// 1-based line and column of the start of the span in `source`.
    pub fn line_column(&self, source: &str) -> (usize, usize) {
        let mut start = (self.span.start as usize).min(source.len());
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// Renders the diagnostic like rustc: `error: message`, ` --> file:line:column`,
    /// the source line and a caret under the span. `source` is the text of the file
    /// the diagnostic is in ([`Diagnostic::file`]).
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let file = SimpleFile::new(file_name, source);
        let mut end = (self.span.end as usize).min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let mut start = (self.span.start as usize).min(end);
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let labels = vec![Label::primary((), Span::new(start, end).range()).with_message(&self.label)];
        let report = Report::error().with_message(&self.message).with_labels(labels);
        term::emit_into_string(&Config::default(), &file, &report)
            .unwrap_or_else(|_| format!("error: {}\n", self.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_column_and_caret() {
        let src = "(define (domain d)\n  (:predicates (p ?x)))\n";
        let d = Diagnostic::new("unknown thing", FileKind::Domain, Span::new(22, 33)).label("here");
        assert_eq!(d.line_column(src), (2, 4));
        let text = d.render("d.pddl", src);
        assert!(text.contains("error: unknown thing"), "{text}");
        assert!(text.contains("d.pddl:2:4"), "{text}");
        assert!(text.contains("^^^^^^^^^^^ here"), "{text}");
    }
}
