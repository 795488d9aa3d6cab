//! PRISM's reward files: `.srew` (state rewards: `<states> <entries>` then
//! `<state> <reward>` lines) and `.trew` (transition rewards: `<states> <entries>` then
//! `<from> <to> <reward>` for a DTMC or CTMC, `<states> <choices> <entries>` then
//! `<from> <choice> <to> <reward>` for an MDP). Only non-zero rewards are listed; lines
//! starting with `#` (PRISM's reward-structure headers) are comments.
//!
//! A `.srew` file lists states in increasing order. A `.trew` file may list its
//! transitions in any order, but only transitions of the model, and each once.

use std::io::{BufRead, Write};

use crate::error::{Error, Problem};
use crate::number::push_shortest;
use crate::sparse::{ModelType, SparseModel};
use crate::text::{error_at, Line, Lines, Pos};
use crate::writing::{itoa, Output};

use super::tra::header_counts;
use super::FORMAT;

/// Reads the header of a reward file: its counts with their places.
fn header<R: BufRead>(lines: &mut Lines<R>, expected: &'static str) -> Result<Vec<(u64, Pos)>, Error> {
    let Some(line) = lines.next_content("#")? else {
        return Err(lines.end_error(Problem::Expected { expected, found: "end of file".into() }));
    };
    header_counts(&line)
}

/// The error for a file whose `what` count `found` (at `pos`) is not the model's.
fn mismatch(file: &str, pos: Pos, what: &'static str, found: u64, model: u64) -> Error {
    error_at(file, pos, Problem::ModelMismatch { what, found, model })
}

/// The next `what` token of `tokens`, or an error at the end of `line`.
fn next<'a>(tokens: &mut impl Iterator<Item = &'a str>, line: &Line, what: &'static str) -> Result<&'a str, Error> {
    tokens.next().ok_or_else(|| line.expected_at_end(what))
}

/// Reads a `.srew` file for a model of `states` states: one reward per state (zero
/// for the states the file does not list).
pub fn read_srew<R: BufRead>(input: R, file: &str, states: usize) -> Result<Vec<f64>, Error> {
    let mut lines = Lines::new(input, file);
    let counts = header(&mut lines, "a header `<states> <entries>`")?;
    if counts.len() != 2 {
        return Err(error_at(
            file,
            counts[0].1,
            Problem::Expected { expected: "two numbers `<states> <entries>`", found: "three".into() },
        ));
    }
    if counts[0].0 != states as u64 {
        return Err(mismatch(file, counts[0].1, "states", counts[0].0, states as u64));
    }
    let mut rewards = vec![0.0; states];
    let mut previous: Option<u64> = None;
    let mut entries = 0u64;
    while let Some(line) = lines.next_content("#")? {
        let mut tokens = line.text.split_ascii_whitespace();
        let state_token = next(&mut tokens, &line, "a state")?;
        let reward_token = next(&mut tokens, &line, "a reward")?;
        if let Some(extra) = tokens.next() {
            return Err(line.expected(extra, "end of line"));
        }
        let state = line.state(state_token, "state", states as u64)?;
        if let Some(previous) = previous.filter(|&p| p >= state as u64) {
            return Err(line.error(state_token, Problem::StateRepeated { previous, found: state as u64 }));
        }
        previous = Some(state as u64);
        rewards[state as usize] = line.reward(reward_token)?;
        entries += 1;
    }
    if entries != counts[1].0 {
        return Err(error_at(
            file,
            counts[1].1,
            Problem::CountMismatch { what: "entries", header: counts[1].0, found: entries },
        ));
    }
    Ok(rewards)
}

/// Reads a `.trew` file for `model`: one reward per matrix entry, aligned with
/// `model.columns` (zero for the transitions the file does not list).
pub fn read_trew<R: BufRead>(input: R, file: &str, model: &SparseModel) -> Result<Vec<f64>, Error> {
    let mut lines = Lines::new(input, file);
    let mdp = model.model_type == ModelType::Mdp;
    let expected = if mdp { "a header `<states> <choices> <entries>`" } else { "a header `<states> <entries>`" };
    let counts = header(&mut lines, expected)?;
    if counts.len() != if mdp { 3 } else { 2 } {
        let found = if mdp { "two numbers (a DTMC's or CTMC's header)" } else { "three numbers (an MDP's header)" };
        return Err(error_at(file, counts[0].1, Problem::Expected { expected, found: found.into() }));
    }
    let states = model.states() as u64;
    if counts[0].0 != states {
        return Err(mismatch(file, counts[0].1, "states", counts[0].0, states));
    }
    if mdp && counts[1].0 != model.choices() {
        return Err(mismatch(file, counts[1].1, "choices", counts[1].0, model.choices()));
    }
    let mut rewards = vec![0.0; model.columns.len()];
    let mut listed = vec![false; model.columns.len()];
    let mut entries = 0u64;
    while let Some(line) = lines.next_content("#")? {
        let mut tokens = line.text.split_ascii_whitespace();
        let from_token = next(&mut tokens, &line, "a source state")?;
        let choice_token = if mdp { Some(next(&mut tokens, &line, "a choice")?) } else { None };
        let to_token = next(&mut tokens, &line, "a target state")?;
        let reward_token = next(&mut tokens, &line, "a reward")?;
        if let Some(extra) = tokens.next() {
            return Err(line.expected(extra, "end of line"));
        }
        let from = line.state(from_token, "state", states)?;
        let rows = model.rows(from);
        let choice = match choice_token {
            Some(token) => {
                let k = line.index(token)?;
                let n = rows.end - rows.start;
                if k >= n {
                    let bound = format!("{n} choices in state {from}");
                    return Err(line.error(token, Problem::OutOfRange { what: "choice", index: k, bound }));
                }
                k
            }
            None => 0,
        };
        let to = line.state(to_token, "target state", states)?;
        let entries_of_row = model.entries(rows.start + choice);
        let Ok(offset) = model.columns[entries_of_row.clone()].binary_search(&to) else {
            let problem = Problem::NoSuchTransition { state: from as u64, choice, target: to as u64 };
            return Err(line.error(to_token, problem));
        };
        let e = entries_of_row.start + offset;
        if listed[e] {
            return Err(line.error(from_token, Problem::Duplicate(format!("the transition `{}`", line.text.trim()))));
        }
        listed[e] = true;
        rewards[e] = line.reward(reward_token)?;
        entries += 1;
    }
    let last = counts[counts.len() - 1];
    if entries != last.0 {
        return Err(error_at(file, last.1, Problem::CountMismatch { what: "entries", header: last.0, found: entries }));
    }
    Ok(rewards)
}

/// Writes one reward per state as a `.srew` file (non-zero rewards only) to `out`,
/// naming it `file` in errors.
pub fn write_srew<W: Write>(rewards: &[f64], out: W, file: &str) -> Result<(), Error> {
    let mut out = Output::new(out, file);
    let mut buf = [0u8; 20];
    out.text.push_str(itoa(rewards.len() as u64, &mut buf));
    out.text.push(' ');
    out.text.push_str(itoa(rewards.iter().filter(|&&r| r != 0.0).count() as u64, &mut buf));
    out.text.push('\n');
    for (s, &r) in rewards.iter().enumerate().filter(|(_, &r)| r != 0.0) {
        out.text.push_str(itoa(s as u64, &mut buf));
        out.text.push(' ');
        push_shortest(&mut out.text, r);
        out.text.push('\n');
        out.flush_if_full()?;
    }
    out.finish()
}

/// Writes one reward per matrix entry of `model` as a `.trew` file (non-zero rewards
/// only) to `out`, naming it `file` in errors.
pub fn write_trew<W: Write>(model: &SparseModel, rewards: &[f64], out: W, file: &str) -> Result<(), Error> {
    crate::writing::check(model, file, FORMAT)?;
    if rewards.len() != model.columns.len() {
        let reason = format!("{} transition rewards for {} transitions", rewards.len(), model.columns.len());
        return Err(Error::Unwritable { file: file.into(), format: FORMAT, reason });
    }
    let mdp = model.model_type == ModelType::Mdp;
    let mut out = Output::new(out, file);
    let mut buf = [0u8; 20];
    out.text.push_str(itoa(model.states() as u64, &mut buf));
    if mdp {
        out.text.push(' ');
        out.text.push_str(itoa(model.choices(), &mut buf));
    }
    out.text.push(' ');
    out.text.push_str(itoa(rewards.iter().filter(|&&r| r != 0.0).count() as u64, &mut buf));
    out.text.push('\n');
    for s in 0..model.states() as u32 {
        let rows = model.rows(s);
        for row in rows.clone() {
            for e in model.entries(row) {
                if rewards[e] == 0.0 {
                    continue;
                }
                let t = &mut out.text;
                t.push_str(itoa(s as u64, &mut buf));
                t.push(' ');
                if mdp {
                    t.push_str(itoa(row - rows.start, &mut buf));
                    t.push(' ');
                }
                t.push_str(itoa(model.columns[e] as u64, &mut buf));
                t.push(' ');
                push_shortest(t, rewards[e]);
                t.push('\n');
            }
            out.flush_if_full()?;
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::read_tra;

    fn model() -> SparseModel {
        let mut m = read_tra(&b"2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n"[..], "m.tra", None).unwrap();
        m.initial = vec![0];
        m
    }

    fn srew_error(text: &str) -> (u64, usize, Problem) {
        match read_srew(text.as_bytes(), "t.srew", 3) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    fn trew_error(text: &str) -> (u64, usize, Problem) {
        match read_trew(text.as_bytes(), "t.trew", &model()) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    #[test]
    fn state_rewards() {
        let text = "# Reward structure \"r\"\n3 2\n0 1.5\n2 7\n";
        assert_eq!(read_srew(text.as_bytes(), "t.srew", 3).unwrap(), [1.5, 0.0, 7.0]);
        let mut out = Vec::new();
        write_srew(&[1.5, 0.0, 7.0], &mut out, "o.srew").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "3 2\n0 1.5\n2 7\n");
        assert_eq!(srew_error("4 0\n"), (1, 1, Problem::ModelMismatch { what: "states", found: 4, model: 3 }));
        assert_eq!(
            srew_error("3 1\n0 1\n2 1\n"),
            (1, 3, Problem::CountMismatch { what: "entries", header: 1, found: 2 })
        );
        assert_eq!(srew_error("3 2\n2 1\n0 1\n"), (3, 1, Problem::StateRepeated { previous: 2, found: 0 }));
        assert_eq!(srew_error("3 2\n1 1\n1 1\n"), (3, 1, Problem::StateRepeated { previous: 1, found: 1 }));
        assert!(matches!(srew_error("3 1\n3 1\n"), (2, 1, Problem::OutOfRange { index: 3, .. })));
        assert!(matches!(srew_error("3 1\n1 nan\n"), (2, 3, Problem::BadReward(x)) if x.is_nan()));
        assert_eq!(srew_error("3 1\n1 y\n"), (2, 3, Problem::BadNumber("y".into())));
        assert!(matches!(srew_error("3 1\n1\n"), (2, 2, Problem::Expected { .. })));
        assert!(matches!(srew_error("3 1 1\n"), (1, 1, Problem::Expected { .. })));
    }

    #[test]
    fn transition_rewards() {
        let m = model();
        let text = "2 3 2\n0 1 1 2.5\n1 0 1 1\n";
        assert_eq!(read_trew(text.as_bytes(), "t.trew", &m).unwrap(), [0.0, 0.0, 2.5, 1.0]);
        let mut out = Vec::new();
        write_trew(&m, &[0.0, 0.0, 2.5, 1.0], &mut out, "o.trew").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
        assert_eq!(
            trew_error("2 3 1\n0 0 0 1\n"),
            (2, 5, Problem::NoSuchTransition { state: 0, choice: 0, target: 0 })
        );
        assert!(matches!(trew_error("2 3 1\n1 1 1 1\n"), (2, 3, Problem::OutOfRange { what: "choice", index: 1, .. })));
        assert!(matches!(trew_error("2 3 2\n0 1 1 1\n0 1 1 2\n"), (3, 1, Problem::Duplicate(_))));
        assert_eq!(
            trew_error("2 2 1\n0 0 1 1\n"),
            (1, 3, Problem::ModelMismatch { what: "choices", found: 2, model: 3 })
        );
        assert!(matches!(trew_error("2 1\n0 1 1\n"), (1, 1, Problem::Expected { .. })));
        assert_eq!(
            trew_error("2 3 2\n0 0 1 1\n"),
            (1, 5, Problem::CountMismatch { what: "entries", header: 2, found: 1 })
        );
    }
}
