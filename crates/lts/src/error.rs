//! Errors of the network front end: a syntax error at a place in a file (rendered
//! rustc-style with file, line, column and a caret), or a message about a whole file
//! or network.

use std::fmt;

/// A syntax error at a line and column of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as given (or `<input>`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub message: String,
    /// The text of the offending line, for the caret.
    pub text: String,
}

impl Diagnostic {
    /// An error at byte `offset` of `line_text` (line `line`, 1-based).
    pub fn at(file: &str, line: usize, line_text: &str, offset: usize, message: impl Into<String>) -> Diagnostic {
        let offset = offset.min(line_text.len());
        let column = line_text.get(..offset).map_or(offset, |p| p.chars().count()) + 1;
        Diagnostic { file: file.to_string(), line, column, message: message.into(), text: line_text.to_string() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let number = self.line.to_string();
        let pad = " ".repeat(number.len());
        // Tabs keep their width under the caret.
        let shown: String = self.text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        writeln!(f, "error: {}", self.message)?;
        writeln!(f, "{pad}--> {}:{}:{}", self.file, self.line, self.column)?;
        writeln!(f, "{pad} |")?;
        writeln!(f, "{number} | {shown}")?;
        write!(f, "{pad} | {}^", " ".repeat(self.column - 1))
    }
}

/// Why a network could not be read or built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A syntax or range error at a place in a file.
    #[error("{0}")]
    Syntax(Box<Diagnostic>),
    /// A file could not be read.
    #[error("cannot read `{path}`: {message}")]
    Io { path: String, message: String },
    /// A well-formed input that the network front end refuses (the text says why).
    #[error("{0}")]
    Invalid(String),
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error::Syntax(Box::new(d))
    }
}

/// The front end's results.
pub type Result<T> = std::result::Result<T, Error>;
