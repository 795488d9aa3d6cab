//! Errors of the PDDL front end: a message, the file (domain or problem) and the source
//! span it points at, rendered rustc-style (file, line, column, the source line and a
//! caret) by the front ends' shared `warpcheck-diagnostic`, with the file added since a
//! planning task comes in two files.

pub use warpcheck_diagnostic::Span;

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

    /// The front ends' shared rendering of this error.
    fn shared(&self) -> warpcheck_diagnostic::Diagnostic {
        warpcheck_diagnostic::Diagnostic::new(self.message.clone(), self.span).label(self.label.clone())
    }

    /// 1-based line and column of the start of the span in `source`.
    pub fn line_column(&self, source: &str) -> (usize, usize) {
        self.shared().line_column(source)
    }

    /// Renders the error like rustc with `file_name` (the file it is in) and its text.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        self.shared().render(file_name, source)
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
