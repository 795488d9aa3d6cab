//! Diagnostics of warpcheck's front ends (DVE, PRISM, PDDL): a message, the source span it points at and
//! notes, rendered rustc-style (file, line, column, the source line and a caret).

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// A byte range of the source text.
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

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Severity {
    /// The model is refused.
    #[default]
    Error,
    /// The model is accepted, read as the message says (DVE: DiVinE 2.4's leniencies).
    Warning,
}

/// An error in a model, or a warning about how an input was read: what and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// Where.
    pub span: Span,
    /// Text under the caret.
    pub label: String,
    /// Other places worth showing (e.g. the earlier declaration of a duplicate).
    pub related: Vec<(Span, String)>,
    /// Notes printed below the source lines.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            related: vec![],
            notes: vec![],
        }
    }

    /// A warning: the input is accepted and read as `message` says.
    pub fn warning(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::new(message, span) }
    }

    /// Sets the text under the caret.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Adds another place to show, with its text.
    pub fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    /// Adds a note below the source lines.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// 1-based line and column of the start of the span in `source`.
    pub fn line_column(&self, source: &str) -> (usize, usize) {
        let start = floor_char_boundary(source, self.span.start as usize);
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// Renders the diagnostic like rustc: `error: message` (or `warning: message`),
    /// ` --> file:line:column`, the source line and a caret under the span.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let file = SimpleFile::new(file_name, source);
        let clamp = |s: Span| {
            let end = floor_char_boundary(source, s.end as usize);
            Span::new(floor_char_boundary(source, (s.start as usize).min(end)), end).range()
        };
        let mut labels = vec![Label::primary((), clamp(self.span)).with_message(&self.label)];
        for (span, text) in &self.related {
            labels.push(Label::secondary((), clamp(*span)).with_message(text));
        }
        let (report, word) = match self.severity {
            Severity::Error => (Report::error(), "error"),
            Severity::Warning => (Report::warning(), "warning"),
        };
        let report = report.with_message(&self.message).with_labels(labels).with_notes(self.notes.clone());
        term::emit_into_string(&Config::default(), &file, &report)
            .unwrap_or_else(|_| format!("{word}: {}\n", self.message))
    }
}

/// The largest character boundary of `source` at or before `at` (spans from a lexer
/// are on boundaries; a span from elsewhere must not split a character).
fn floor_char_boundary(source: &str, at: usize) -> usize {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_column_and_caret() {
        let src = "const int x;\nconst int y = z;\n";
        let d = Diagnostic::new("unknown name `z`", Span::new(27, 28)).label("not declared");
        assert_eq!(d.line_column(src), (2, 15));
        let text = d.render("m.prism", src);
        assert!(text.contains("error: unknown name `z`"), "{text}");
        assert!(text.contains("m.prism:2:15"), "{text}");
        assert!(text.contains("const int y = z;"), "{text}");
        assert!(text.contains("^ not declared"), "{text}");
    }

    #[test]
    fn warnings_render_as_warnings() {
        let src = "dtmc\nmodule m endmodule\n";
        let d = Diagnostic::warning("module `m` has no variables", Span::new(12, 13));
        let text = d.render("m.prism", src);
        assert!(text.starts_with("warning: module `m` has no variables"), "{text}");
        assert!(text.contains("m.prism:2:8"), "{text}");
    }

    #[test]
    fn renders_dve_sources_too() {
        let src = "byte x;\nbyte y = z;\n";
        let d = Diagnostic::new("undefined name `z`", Span::new(17, 18)).label("not declared");
        assert_eq!(d.line_column(src), (2, 10));
        let text = d.render("m.dve", src);
        assert!(text.contains("m.dve:2:10") && text.contains("byte y = z;"), "{text}");
    }

    #[test]
    fn spans_inside_a_character_do_not_split_it() {
        let src = "x = \"é\";\n";
        let d = Diagnostic::new("bad", Span::new(6, 7));
        assert_eq!(d.line_column(src), (1, 6));
        assert!(d.render("m", src).contains("m:1:6"));
    }
}
