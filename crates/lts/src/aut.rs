//! The Aldebaran `.aut` format with labels (spec §1): a reader that parses each
//! transition line from both ends, so that labels may hold commas, blanks and inner
//! quotes, and a writer that quotes every label.
//!
//! Labels are interned per file; label 0 is always the internal action τ (the names
//! in [`AutOptions::internal`], `i` and `tau` by default). Repeated transitions
//! collapse (a transition relation is a set) and are counted.

use rustc_hash::FxHashMap;

use crate::error::{Diagnostic, Error, Result};

/// The internal action's label id in every [`Lts`] and network.
pub const TAU: u32 = 0;

/// How `.aut` files are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutOptions {
    /// Label names read as τ (quoted or not).
    pub internal: Vec<String>,
}

impl Default for AutOptions {
    fn default() -> AutOptions {
        AutOptions { internal: vec!["i".into(), "tau".into()] }
    }
}

/// A labelled transition system as read from one `.aut` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lts {
    pub initial: u32,
    /// Declared states (not all need be reachable).
    pub states: u32,
    /// Label names by id; `labels[0]` is τ (written `i`).
    pub labels: Vec<String>,
    /// Distinct `(from, label, to)` triples, sorted.
    pub transitions: Vec<(u32, u32, u32)>,
    /// Transition lines that repeated an earlier one.
    pub duplicates: u64,
}

impl Lts {
    /// An LTS without transitions over the labels `[τ]`.
    pub fn new(initial: u32, states: u32) -> Lts {
        Lts { initial, states, labels: vec!["i".into()], transitions: Vec::new(), duplicates: 0 }
    }

    /// The id of `name`, interning it (callers map τ's names to [`TAU`] themselves).
    pub fn intern(&mut self, name: &str, index: &mut FxHashMap<String, u32>) -> u32 {
        if let Some(&id) = index.get(name) {
            return id;
        }
        let id = self.labels.len() as u32;
        self.labels.push(name.to_string());
        index.insert(name.to_string(), id);
        id
    }
}

/// Reads `.aut` text; `file` names it in errors.
pub fn parse(text: &str, file: &str, options: &AutOptions) -> Result<Lts> {
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
    let blank = |l: &str| l.trim_matches([' ', '\t']).is_empty();
    let Some((number, header)) = lines.by_ref().find(|(_, l)| !blank(l)) else {
        return Err(Diagnostic::at(
            file,
            1,
            "",
            0,
            "empty file: an .aut file starts with `des (initial, transitions, states)`",
        )
        .into());
    };
    let (initial, declared, states) = parse_header(header, file, number)?;
    let mut lts = Lts::new(initial, states);
    let mut index = FxHashMap::default();
    for name in &options.internal {
        index.insert(name.clone(), TAU);
    }
    let mut lines_read = 0u64;
    let mut last = number;
    for (number, line) in lines {
        if blank(line) {
            continue;
        }
        last = number;
        lines_read += 1;
        let (from, label, to) = parse_transition(line, file, number, states)?;
        let id = lts.intern(label, &mut index);
        lts.transitions.push((from, id, to));
    }
    if lines_read != declared {
        let message = format!(
            "the header declares {declared} transitions but the file has {lines_read} (last transition on line {last})"
        );
        return Err(Diagnostic::at(file, number, header, 0, message).into());
    }
    lts.transitions.sort_unstable();
    let before = lts.transitions.len();
    lts.transitions.dedup();
    lts.duplicates = (before - lts.transitions.len()) as u64;
    Ok(lts)
}

/// `des (initial, transitions, states)`.
fn parse_header(line: &str, file: &str, number: usize) -> Result<(u32, u64, u32)> {
    let err = |offset: usize, message: String| Error::from(Diagnostic::at(file, number, line, offset, message));
    let start = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[start..];
    let Some(after) = rest.strip_prefix("des") else {
        return Err(err(start, "expected `des (initial, transitions, states)`: not an .aut file (BCG, FSM and DOT files are not read; convert with `bcg_io x.bcg x.aut`)".into()));
    };
    let open = start + 3 + (after.len() - after.trim_start_matches([' ', '\t']).len());
    if line.as_bytes().get(open) != Some(&b'(') {
        return Err(err(open, "expected `(` after `des`".into()));
    }
    let trimmed_end = line.trim_end_matches([' ', '\t']).len();
    if !line[..trimmed_end].ends_with(')') || trimmed_end <= open + 1 {
        return Err(err(trimmed_end, "expected `)` at the end of the header".into()));
    }
    let inner = &line[open + 1..trimmed_end - 1];
    let fields: Vec<&str> = inner.split(',').collect();
    if fields.len() != 3 {
        return Err(err(
            open + 1,
            format!("expected 3 numbers in the header (initial, transitions, states), found {} fields", fields.len()),
        ));
    }
    let mut values = [0u64; 3];
    let mut offset = open + 1;
    for (i, field) in fields.iter().enumerate() {
        let lead = field.len() - field.trim_start_matches([' ', '\t']).len();
        let at = offset + lead;
        values[i] = number_at(field.trim_matches([' ', '\t']), file, number, line, at)?;
        offset += field.len() + 1;
    }
    let [initial, transitions, states] = values;
    if states == 0 {
        return Err(err(trimmed_end - 1, "the header declares 0 states: an LTS has at least its initial state".into()));
    }
    if states > u32::MAX as u64 {
        return Err(err(open + 1, format!("{states} states: at most {} are supported", u32::MAX)));
    }
    if initial >= states {
        return Err(err(open + 1, format!("initial state {initial} is not below the {states} declared states")));
    }
    Ok((initial as u32, transitions, states as u32))
}

/// A natural number at byte `at` of `line`.
fn number_at(text: &str, file: &str, number: usize, line: &str, at: usize) -> Result<u64> {
    if text.contains('/') || text.contains(' ') || text.contains('\t') {
        let message = "a probabilistic state (mCRL2's `.aut` extension) is not supported";
        return Err(Diagnostic::at(file, number, line, at, message).into());
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Diagnostic::at(file, number, line, at, format!("expected a natural number, found `{text}`")).into());
    }
    text.parse().map_err(|_| Diagnostic::at(file, number, line, at, format!("number `{text}` is too large")).into())
}

/// `(from, label, to)`, parsed from both ends.
fn parse_transition<'a>(line: &'a str, file: &str, number: usize, states: u32) -> Result<(u32, &'a str, u32)> {
    let err = |offset: usize, message: String| Error::from(Diagnostic::at(file, number, line, offset, message));
    let start = line.len() - line.trim_start_matches([' ', '\t']).len();
    let end = line.trim_end_matches([' ', '\t']).len();
    if line.as_bytes()[start] != b'(' {
        return Err(err(start, "expected `(` to start a transition `(from, label, to)`".into()));
    }
    if !line[..end].ends_with(')') || end <= start + 1 {
        return Err(err(end, "expected `)` to end the transition".into()));
    }
    let inner = start + 1..end - 1;
    let Some(first) = line[inner.clone()].find(',').map(|i| i + inner.start) else {
        return Err(err(inner.start, "expected `(from, label, to)`: no comma".into()));
    };
    let last = line[inner.clone()].rfind(',').map(|i| i + inner.start).unwrap_or(first);
    if last == first {
        return Err(err(first, "expected `(from, label, to)`: only one comma".into()));
    }
    let state = |range: std::ops::Range<usize>| -> Result<u32> {
        let field = &line[range.clone()];
        let at = range.start + field.len() - field.trim_start_matches([' ', '\t']).len();
        let value = number_at(field.trim_matches([' ', '\t']), file, number, line, at)?;
        if value >= states as u64 {
            return Err(err(at, format!("state {value} is not below the {states} declared states")));
        }
        Ok(value as u32)
    };
    let from = state(inner.start..first)?;
    let to = state(last + 1..inner.end)?;
    let raw = &line[first + 1..last];
    let lead = raw.len() - raw.trim_start_matches([' ', '\t']).len();
    let label_at = first + 1 + lead;
    let label = raw.trim_matches([' ', '\t']);
    let label = if label.starts_with('"') {
        if label.len() < 2 || !label.ends_with('"') {
            return Err(err(label_at, "unbalanced `\"` in the label".into()));
        }
        &label[1..label.len() - 1]
    } else {
        if let Some(q) = label.find('"') {
            return Err(err(label_at + q, "unbalanced `\"` in the label (quote the whole label)".into()));
        }
        if let Some(c) = label.find(',') {
            return Err(err(label_at + c, "a `,` in an unquoted label: quote the label".into()));
        }
        label
    };
    if label.is_empty() {
        return Err(err(label_at, "empty label".into()));
    }
    Ok((from, label, to))
}

/// Writes an LTS as `.aut` text: every label quoted, τ (`None`) as `tau_name`.
pub fn write<'a, I>(initial: u32, states: u32, transitions: usize, lines: I, tau_name: &str) -> String
where
    I: IntoIterator<Item = (u32, Option<&'a str>, u32)>,
{
    use std::fmt::Write;
    let mut out = format!("des ({initial}, {transitions}, {states})\n");
    for (from, label, to) in lines {
        let _ = writeln!(out, "({from}, \"{}\", {to})", label.unwrap_or(tau_name));
    }
    out
}

impl Lts {
    /// The LTS as `.aut` text (τ written `tau_name`).
    pub fn to_aut(&self, tau_name: &str) -> String {
        let lines =
            self.transitions.iter().map(|&(f, l, t)| (f, (l != TAU).then(|| self.labels[l as usize].as_str()), t));
        write(self.initial, self.states, self.transitions.len(), lines, tau_name)
    }
}
