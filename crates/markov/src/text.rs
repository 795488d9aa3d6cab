//! Line-by-line reading shared by the readers: numbered lines streamed from a
//! [`BufRead`], tokens located by column, numbers, and errors at a place in the file.

use std::io::BufRead;

use crate::error::{Error, Problem};

/// A place in a file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: u64,
    pub column: usize,
}

/// The error for `problem` at `pos` of `file`.
pub(crate) fn error_at(file: &str, pos: Pos, problem: Problem) -> Error {
    Error::Malformed { file: file.to_string(), line: pos.line, column: pos.column, problem }
}

/// The lines of a file, numbered from 1, without their line endings (`\n` or `\r\n`).
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    number: u64,
    file: String,
}

impl<R: BufRead> Lines<R> {
    /// Reads `reader`, naming it `file` in errors.
    pub fn new(reader: R, file: &str) -> Lines<R> {
        Lines { reader, buf: Vec::with_capacity(256), number: 0, file: file.to_string() }
    }

    /// The next line, or `None` at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, Error> {
        self.buf.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| Error::Io { file: self.file.clone(), source })?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        match std::str::from_utf8(&self.buf) {
            Ok(text) => Ok(Some(Line { text, number: self.number, file: &self.file })),
            Err(e) => {
                let valid = std::str::from_utf8(&self.buf[..e.valid_up_to()]).unwrap_or("");
                let pos = Pos { line: self.number, column: valid.chars().count() + 1 };
                Err(error_at(&self.file, pos, Problem::NotUtf8))
            }
        }
    }

    /// The next line that is neither blank nor a comment (a line starting with
    /// `comment` after white space), or `None` at the end of the file.
    pub fn next_content(&mut self, comment: &str) -> Result<Option<Line<'_>>, Error> {
        loop {
            // Two calls: the borrow checker cannot see that a skipped line's borrow ends.
            let skip = match self.next_line()? {
                None => return Ok(None),
                Some(line) => {
                    let t = line.text.trim_start();
                    t.is_empty() || (!comment.is_empty() && t.starts_with(comment))
                }
            };
            if !skip {
                let line =
                    Line { text: std::str::from_utf8(&self.buf).unwrap_or(""), number: self.number, file: &self.file };
                return Ok(Some(line));
            }
        }
    }

    /// The place one past the last line: where problems found at the end are reported.
    pub fn end(&self) -> Pos {
        Pos { line: self.number + 1, column: 1 }
    }

    /// The error for `problem` found at the end of the file.
    pub fn end_error(&self, problem: Problem) -> Error {
        error_at(&self.file, self.end(), problem)
    }
}

/// One line of a file.
#[derive(Clone, Copy)]
pub(crate) struct Line<'a> {
    /// The text, without the line ending.
    pub text: &'a str,
    /// 1-based line number.
    pub number: u64,
    file: &'a str,
}

impl<'a> Line<'a> {
    /// The place of `token`, which must be a slice of this line's text (else the end of
    /// the line).
    pub fn pos(&self, token: &str) -> Pos {
        let start = self.text.as_ptr() as usize;
        let at = token.as_ptr() as usize;
        let offset = if at >= start && at <= start + self.text.len() { at - start } else { self.text.len() };
        let prefix = self.text.get(..offset).unwrap_or(self.text);
        Pos { line: self.number, column: prefix.chars().count() + 1 }
    }

    /// The place just past the end of the line.
    pub fn end_pos(&self) -> Pos {
        Pos { line: self.number, column: self.text.chars().count() + 1 }
    }

    /// The error for `problem` at `token` (a slice of this line).
    pub fn error(&self, token: &str, problem: Problem) -> Error {
        error_at(self.file, self.pos(token), problem)
    }

    /// The error for `problem` at the end of the line.
    pub fn error_at_end(&self, problem: Problem) -> Error {
        error_at(self.file, self.end_pos(), problem)
    }

    /// The error "expected `expected`, found `token`".
    pub fn expected(&self, token: &str, expected: &'static str) -> Error {
        self.error(token, Problem::Expected { expected, found: found(token) })
    }

    /// The error "expected `expected`, found end of line".
    pub fn expected_at_end(&self, expected: &'static str) -> Error {
        self.error_at_end(Problem::Expected { expected, found: "end of line".into() })
    }

    /// `token` as a non-negative integer.
    pub fn index(&self, token: &str) -> Result<u64, Error> {
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(token, Problem::BadInteger(token.to_string())));
        }
        token.parse::<u64>().map_err(|_| self.error(token, Problem::BadInteger(token.to_string())))
    }

    /// `token` as a state index below `states`.
    pub fn state(&self, token: &str, what: &'static str, states: u64) -> Result<u32, Error> {
        let s = self.index(token)?;
        if s >= states {
            let bound = format!("{states} states");
            return Err(self.error(token, Problem::OutOfRange { what, index: s, bound }));
        }
        // `states` never exceeds u32::MAX + 1 (checked where the header is read).
        u32::try_from(s).map_err(|_| self.error(token, Problem::BadInteger(token.to_string())))
    }

    /// `token` as a floating-point number.
    pub fn number(&self, token: &str) -> Result<f64, Error> {
        token.parse::<f64>().map_err(|_| self.error(token, Problem::BadNumber(token.to_string())))
    }

    /// `token` as a probability or rate: positive and finite.
    pub fn weight(&self, token: &str) -> Result<f64, Error> {
        let x = self.number(token)?;
        if x > 0.0 && x.is_finite() {
            Ok(x)
        } else {
            Err(self.error(token, Problem::BadWeight(x)))
        }
    }

    /// `token` as a reward: finite.
    pub fn reward(&self, token: &str) -> Result<f64, Error> {
        let x = self.number(token)?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.error(token, Problem::BadReward(x)))
        }
    }
}

/// How a token is shown in an error: quoted, or `end of line` when empty.
pub(crate) fn found(token: &str) -> String {
    if token.is_empty() {
        "end of line".to_string()
    } else {
        format!("`{token}`")
    }
}

/// The largest number of states a model can have (indices are `u32`).
pub(crate) const MAX_STATES: u64 = u32::MAX as u64;

/// A capacity to reserve for `n` items announced by a file header: not more than a few
/// million, so that a lying header cannot make the reader allocate without bound.
pub(crate) fn capacity(n: u64) -> usize {
    n.min(1 << 22) as usize
}
