//! PRISM's `.tra` file, the transition matrix: `<states> <transitions>` then
//! `<from> <to> <value>` lines for a DTMC or CTMC, `<states> <choices> <transitions>`
//! then `<from> <choice> <to> <probability> [<action>]` lines for an MDP.
//!
//! The reader wants the lines grouped by source state in increasing order and, in an
//! MDP, by choice 0, 1, ... within a state (as PRISM and Storm write them; the PRISM
//! manual calls the order optional, warpcheck does not sort whole files). Targets within
//! a row may come in any order. A trailing action name is kept for MDP choices (the
//! transitions of one choice must agree on it) and ignored in DTMCs and CTMCs, whose
//! rows hold transitions of several actions.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use crate::error::{Error, Problem};
use crate::number::push_shortest;
use crate::rows::Rows;
use crate::sparse::{ModelType, SparseModel};
use crate::text::{error_at, Line, Lines, Pos, MAX_STATES};
use crate::writing::{self, itoa, Output};

use super::FORMAT;

/// The article and name of a model type, for messages.
fn a(model_type: ModelType) -> &'static str {
    match model_type {
        ModelType::Dtmc => "a DTMC",
        ModelType::Ctmc => "a CTMC",
        ModelType::Mdp => "an MDP",
    }
}

/// The counts of a header line and where each is.
pub(super) fn header_counts(line: &Line) -> Result<Vec<(u64, Pos)>, Error> {
    let tokens: Vec<&str> = line.text.split_ascii_whitespace().collect();
    if !(2..=3).contains(&tokens.len()) {
        let first = tokens.first().copied().unwrap_or(line.text);
        return Err(line.expected(first, "a header `<states> <transitions>` or `<states> <choices> <transitions>`"));
    }
    tokens.iter().map(|t| Ok((line.index(t)?, line.pos(t)))).collect()
}

/// Reads a `.tra` file, naming it `file` in errors. A header of three numbers makes
/// an MDP; one of two numbers a DTMC, or a CTMC if `model_type` says so (a `model_type`
/// that disagrees with the header is an error).
///
/// A `.tra` file has no initial states and no labels: the model returned has none (its
/// [`SparseModel::validate`] fails until they are set, from the `.lab` file).
pub fn read_tra<R: BufRead>(input: R, file: &str, model_type: Option<ModelType>) -> Result<SparseModel, Error> {
    let mut lines = Lines::new(input, file);
    let (found, counts) = {
        let Some(line) = lines.next_content("")? else {
            let expected = "a header `<states> <transitions>` or `<states> <choices> <transitions>`";
            return Err(lines.end_error(Problem::Expected { expected, found: "end of file".into() }));
        };
        let counts = header_counts(&line)?;
        let found = match (counts.len(), model_type) {
            (3, _) => ModelType::Mdp,
            (_, Some(ModelType::Ctmc)) => ModelType::Ctmc,
            _ => ModelType::Dtmc,
        };
        if let Some(asked) = model_type.filter(|&t| (t == ModelType::Mdp) != (found == ModelType::Mdp)) {
            let problem = Problem::TypeMismatch { expected: a(asked), found: a(found) };
            return Err(error_at(file, counts[0].1, problem));
        }
        if counts[0].0 > MAX_STATES {
            let what = format!("{} states (at most {MAX_STATES})", counts[0].0);
            return Err(error_at(file, counts[0].1, Problem::Unsupported(what)));
        }
        (found, counts)
    };
    let mdp = found == ModelType::Mdp;
    let states = counts[0].0;
    let transitions = counts[counts.len() - 1];
    let mut reader = Reader {
        rows: Rows::new(found, states, if mdp { counts[1].0 } else { states }, transitions.0),
        mdp,
        states,
        open: None,
        listed: 0,
        entries: 0,
        row_action: None,
        actions: Vec::new(),
        action_names: Vec::new(),
        action_index: HashMap::new(),
    };
    while let Some(line) = lines.next_content("")? {
        reader.line(&line, file)?;
    }
    reader.close_state(file)?;
    let mut model = reader.rows.model;
    if reader.listed != states {
        let problem = Problem::CountMismatch { what: "states", header: states, found: reader.listed };
        return Err(error_at(file, counts[0].1, problem));
    }
    if mdp && model.choices() != counts[1].0 {
        let problem = Problem::CountMismatch { what: "choices", header: counts[1].0, found: model.choices() };
        return Err(error_at(file, counts[1].1, problem));
    }
    if reader.entries != transitions.0 {
        let problem = Problem::CountMismatch { what: "transitions", header: transitions.0, found: reader.entries };
        return Err(error_at(file, transitions.1, problem));
    }
    if !reader.action_names.is_empty() {
        let unnamed = reader.action_names.len() as u32;
        if reader.actions.contains(&None) {
            reader.action_names.push(String::new());
        }
        model.row_actions = reader.actions.iter().map(|a| a.unwrap_or(unnamed)).collect();
        model.action_names = reader.action_names;
    }
    Ok(model)
}

/// The state of the reader after the header.
struct Reader {
    rows: Rows,
    mdp: bool,
    states: u64,
    /// The state and choice whose row is open.
    open: Option<(u64, u64)>,
    /// States whose rows are complete.
    listed: u64,
    entries: u64,
    /// The open row's action, once its first line is read.
    row_action: Option<Option<u32>>,
    /// Each row's action (MDPs).
    actions: Vec<Option<u32>>,
    action_names: Vec<String>,
    action_index: HashMap<String, u32>,
}

impl Reader {
    fn line(&mut self, line: &Line, file: &str) -> Result<(), Error> {
        let mut tokens = line.text.split_ascii_whitespace();
        let mut next = |what: &'static str| tokens.next().ok_or_else(|| line.expected_at_end(what));
        let from_token = next("a source state")?;
        let choice_token = if self.mdp { Some(next("a choice")?) } else { None };
        let to_token = next("a target state")?;
        let value_token = next(if self.mdp { "a probability" } else { "a probability or rate" })?;
        let action_token = tokens.next();
        if let Some(extra) = tokens.next() {
            return Err(line.expected(extra, "end of line"));
        }

        let from = line.index(from_token)?;
        if from >= self.states {
            let bound = format!("{} states", self.states);
            return Err(line.error(from_token, Problem::OutOfRange { what: "state", index: from, bound }));
        }
        let choice = match choice_token {
            Some(t) => line.index(t)?,
            None => 0,
        };
        match self.open {
            Some((state, open_choice)) if state == from => {
                if choice == open_choice + 1 {
                    self.close_row(file)?;
                    self.open_row(line, from_token);
                } else if choice != open_choice {
                    let problem = Problem::ChoiceOutOfOrder { expected: open_choice + 1, found: choice };
                    return Err(line.error(choice_token.unwrap_or(from_token), problem));
                }
            }
            Some((state, _)) if from < state => {
                return Err(line.error(from_token, Problem::StateRepeated { previous: state, found: from }));
            }
            _ => {
                self.close_state(file)?;
                if from != self.listed {
                    return Err(line.error(from_token, Problem::NoTransitions(self.listed)));
                }
                if choice != 0 {
                    let problem = Problem::ChoiceOutOfOrder { expected: 0, found: choice };
                    return Err(line.error(choice_token.unwrap_or(from_token), problem));
                }
                self.open_row(line, from_token);
            }
        }
        self.open = Some((from, choice));

        let to = line.state(to_token, "target state", self.states)?;
        let value = line.weight(value_token)?;
        self.rows.entry(to, value, line.pos(to_token));
        self.entries += 1;
        if self.mdp {
            let action = action_token.map(|name| self.action(name));
            match self.row_action {
                None => self.row_action = Some(action),
                Some(first) if first != action => {
                    let at = action_token.unwrap_or(value_token);
                    return Err(
                        line.error(at, Problem::Misplaced("the transitions of one choice name different actions"))
                    );
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn action(&mut self, name: &str) -> u32 {
        if let Some(&a) = self.action_index.get(name) {
            return a;
        }
        let a = self.action_names.len() as u32;
        self.action_names.push(name.to_string());
        self.action_index.insert(name.to_string(), a);
        a
    }

    fn open_row(&mut self, line: &Line, first_token: &str) {
        self.rows.start_row(None, line.pos(first_token));
        self.row_action = None;
    }

    fn close_row(&mut self, file: &str) -> Result<(), Error> {
        self.rows.end_row(file)?;
        if self.mdp {
            self.actions.push(self.row_action.take().flatten());
        }
        Ok(())
    }

    fn close_state(&mut self, file: &str) -> Result<(), Error> {
        if self.open.take().is_some() {
            self.close_row(file)?;
            self.rows.end_state();
            self.listed += 1;
        }
        Ok(())
    }
}

/// Writes the transition matrix of `model` as a `.tra` file to `out` (naming it `file`
/// in errors): shortest round-trip decimals, MDP choices with their action names when
/// the model names them. DTMC and CTMC rows are written without actions.
pub fn write_tra<W: Write>(model: &SparseModel, out: W, file: &str) -> Result<(), Error> {
    writing::check(model, file, FORMAT)?;
    let mdp = model.model_type == ModelType::Mdp;
    if mdp {
        if let Some(name) = model.action_names.iter().find(|n| n.contains(|c: char| c.is_ascii_whitespace())) {
            let reason = format!("the action name {name:?} has white space");
            return Err(Error::Unwritable { file: file.into(), format: FORMAT, reason });
        }
    }
    let mut out = Output::new(out, file);
    let mut buf = [0u8; 20];
    out.text.push_str(itoa(model.states() as u64, &mut buf));
    if mdp {
        out.text.push(' ');
        out.text.push_str(itoa(model.choices(), &mut buf));
    }
    out.text.push(' ');
    out.text.push_str(itoa(model.transitions(), &mut buf));
    out.text.push('\n');
    for s in 0..model.states() as u32 {
        let rows = model.rows(s);
        for row in rows.clone() {
            let action = match model.row_actions.get(row as usize) {
                Some(&a) if mdp => model.action_names[a as usize].as_str(),
                _ => "",
            };
            for (to, value) in model.row(row) {
                let t = &mut out.text;
                t.push_str(itoa(s as u64, &mut buf));
                t.push(' ');
                if mdp {
                    t.push_str(itoa(row - rows.start, &mut buf));
                    t.push(' ');
                }
                t.push_str(itoa(to as u64, &mut buf));
                t.push(' ');
                push_shortest(t, value);
                if !action.is_empty() {
                    t.push(' ');
                    t.push_str(action);
                }
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

    fn read_str(text: &str, model_type: Option<ModelType>) -> Result<SparseModel, Error> {
        read_tra(text.as_bytes(), "t.tra", model_type)
    }

    fn malformed(text: &str, model_type: Option<ModelType>) -> (u64, usize, Problem) {
        match read_str(text, model_type) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    const DTMC: &str = "3 4\n0 1 0.5\n0 2 0.5\n1 1 1\n2 2 1\n";
    const MDP: &str = "2 3 4\n0 0 1 1 a\n0 1 0 0.5 b\n0 1 1 0.5 b\n1 0 1 1\n";

    #[test]
    fn reads_chains_and_mdps() {
        let m = read_str(DTMC, None).unwrap();
        assert_eq!((m.model_type, m.states(), m.choices(), m.transitions()), (ModelType::Dtmc, 3, 3, 4));
        let m = read_str("2 3\n0 0 2\n0 1 0.5\n1 0 4\n", Some(ModelType::Ctmc)).unwrap();
        assert_eq!(m.model_type, ModelType::Ctmc);
        assert_eq!(m.row(0).collect::<Vec<_>>(), [(0, 2.0), (1, 0.5)]);
        let m = read_str(MDP, None).unwrap();
        assert_eq!((m.model_type, m.states(), m.choices(), m.transitions()), (ModelType::Mdp, 2, 3, 4));
        let names: Vec<&str> = m.row_actions.iter().map(|&a| m.action_names[a as usize].as_str()).collect();
        assert_eq!(names, ["a", "b", ""]);
        let m = read_str("2 3\n0 1 0.25\n0 0 0.75\n1 1 1\n", None).unwrap();
        assert_eq!(m.row(0).collect::<Vec<_>>(), [(0, 0.75), (1, 0.25)]);
    }

    #[test]
    fn errors_with_their_places() {
        assert_eq!(
            malformed("", None),
            (
                1,
                1,
                Problem::Expected {
                    expected: "a header `<states> <transitions>` or `<states> <choices> <transitions>`",
                    found: "end of file".into()
                }
            )
        );
        assert!(matches!(malformed("3\n", None), (1, 1, Problem::Expected { .. })));
        assert_eq!(malformed("3 x\n", None), (1, 3, Problem::BadInteger("x".into())));
        assert!(matches!(malformed(DTMC, Some(ModelType::Mdp)), (1, 1, Problem::TypeMismatch { .. })));
        assert!(matches!(malformed(MDP, Some(ModelType::Dtmc)), (1, 1, Problem::TypeMismatch { .. })));
        let case = |from: &str, to: &str| malformed(&DTMC.replacen(from, to, 1), None);
        assert_eq!(case("0 2 0.5", "0 2 0.5x"), (3, 5, Problem::BadNumber("0.5x".into())));
        assert_eq!(case("0 2 0.5", "0 2 0"), (3, 5, Problem::BadWeight(0.0)));
        assert!(matches!(
            case("0 2 0.5", "0 3 0.5"),
            (3, 3, Problem::OutOfRange { what: "target state", index: 3, .. })
        ));
        assert!(matches!(case("2 2 1", "3 2 1"), (5, 1, Problem::OutOfRange { what: "state", index: 3, .. })));
        assert_eq!(case("0 2 0.5", "0 1 0.5"), (3, 3, Problem::DuplicateTarget(1)));
        assert_eq!(case("0 2 0.5", "0 2 0.25"), (2, 1, Problem::NotStochastic(0.75)));
        assert_eq!(case("1 1 1\n2 2 1", "2 2 1\n1 1 1"), (4, 1, Problem::NoTransitions(1)));
        assert_eq!(case("2 2 1", "1 2 1"), (4, 1, Problem::NotStochastic(2.0)));
        assert_eq!(case("2 2 1", "0 2 1"), (5, 1, Problem::StateRepeated { previous: 1, found: 0 }));
        assert_eq!(
            case("1 1 1", "1 1 1 a extra"),
            (4, 9, Problem::Expected { expected: "end of line", found: "`extra`".into() })
        );
        assert_eq!(
            case("0 1 0.5\n", "0 1\n"),
            (2, 4, Problem::Expected { expected: "a probability or rate", found: "end of line".into() })
        );
        assert_eq!(case("3 4", "4 4"), (1, 1, Problem::CountMismatch { what: "states", header: 4, found: 3 }));
        assert_eq!(case("3 4", "3 5"), (1, 3, Problem::CountMismatch { what: "transitions", header: 5, found: 4 }));
        let mdp = |from: &str, to: &str| malformed(&MDP.replacen(from, to, 1), None);
        assert_eq!(mdp("0 1 0 0.5 b", "0 2 0 0.5 b"), (3, 3, Problem::ChoiceOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(mdp("1 0 1 1", "1 1 1 1"), (5, 3, Problem::ChoiceOutOfOrder { expected: 0, found: 1 }));
        assert_eq!(
            mdp("0 1 1 0.5 b", "0 1 1 0.5 c"),
            (4, 11, Problem::Misplaced("the transitions of one choice name different actions"))
        );
        assert_eq!(mdp("2 3 4", "2 4 4"), (1, 3, Problem::CountMismatch { what: "choices", header: 4, found: 3 }));
    }

    #[test]
    fn writes_prism_layout() {
        let mut out = Vec::new();
        write_tra(&with_initial(read_str(MDP, None).unwrap()), &mut out, "o.tra").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), MDP);
        let mut out = Vec::new();
        write_tra(&with_initial(read_str(DTMC, None).unwrap()), &mut out, "o.tra").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), DTMC);
    }

    fn with_initial(mut m: SparseModel) -> SparseModel {
        m.initial = vec![0];
        m
    }
}
