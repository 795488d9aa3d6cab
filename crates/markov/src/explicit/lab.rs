//! PRISM's `.lab` file, the state labels: a first line declaring the labels
//! (`0="init" 1="deadlock" 2="goal"`), then `<state>: <label indices>` for each state
//! with at least one label, in increasing state order.
//!
//! The reader keeps every declared label, also one that no state carries (PRISM always
//! declares `init` and `deadlock`), in the order of the declaration. The writer declares
//! `init` (the model's initial states) and `deadlock` (empty if the model has no such
//! label) first and the other labels alphabetically, as the files in `shared/markov` do.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use crate::error::{Error, Problem};
use crate::sparse::{Labelling, SparseModel};
use crate::text::{Line, Lines};
use crate::writing::{self, itoa, Output, StateLabels};

use super::FORMAT;

/// Parses the declaration line into (index, name) pairs, rejecting a repeated index or
/// name.
fn declarations(line: &Line) -> Result<Vec<(u64, String)>, Error> {
    let mut declared: Vec<(u64, String)> = Vec::new();
    let mut rest = line.text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(declared);
        }
        let Some((index_token, after)) = rest.split_once('=') else {
            return Err(line.expected(rest, "a label declaration `<index>=\"<name>\"`"));
        };
        let index_token = index_token.trim();
        let index = line.index(index_token)?;
        let after = after.trim_start();
        let Some(quoted) = after.strip_prefix('"') else {
            return Err(line.expected(after, "`\"` before the label's name"));
        };
        let Some(end) = quoted.find('"') else {
            return Err(line.expected_at_end("the closing `\"` of the label's name"));
        };
        let name = &quoted[..end];
        if declared.iter().any(|(i, _)| *i == index) {
            return Err(line.error(index_token, Problem::Duplicate(format!("label index {index}"))));
        }
        if declared.iter().any(|(_, n)| n == name) {
            return Err(line.error(index_token, Problem::Duplicate(format!("label \"{name}\""))));
        }
        declared.push((index, name.to_string()));
        rest = &quoted[end + 1..];
    }
}

/// Reads a `.lab` file for a model of `states` states, naming it `file` in errors.
pub fn read_lab<R: BufRead>(input: R, file: &str, states: usize) -> Result<Labelling, Error> {
    let mut lines = Lines::new(input, file);
    let mut labels: Vec<(String, Vec<u32>)> = Vec::new();
    let mut slot: HashMap<u64, usize> = HashMap::new();
    if let Some(line) = lines.next_line()? {
        for (index, name) in declarations(&line)? {
            slot.insert(index, labels.len());
            labels.push((name, Vec::new()));
        }
    }
    let mut previous: Option<u64> = None;
    while let Some(line) = lines.next_content("")? {
        let Some((state_token, rest)) = line.text.split_once(':') else {
            return Err(line.expected(line.text.trim(), "`<state>: <label indices>`"));
        };
        let state_token = state_token.trim();
        let state = line.state(state_token, "state", states as u64)?;
        if let Some(previous) = previous.filter(|&p| p >= state as u64) {
            let problem = Problem::StateRepeated { previous, found: state as u64 };
            return Err(line.error(state_token, problem));
        }
        previous = Some(state as u64);
        for token in rest.split_ascii_whitespace() {
            let index = line.index(token)?;
            let Some(&l) = slot.get(&index) else {
                let bound = format!("{} declared labels", labels.len());
                return Err(line.error(token, Problem::OutOfRange { what: "label index", index, bound }));
            };
            let members = &mut labels[l].1;
            if members.last() != Some(&state) {
                members.push(state);
            }
        }
    }
    Ok(Labelling { labels })
}

/// Writes the labels of `model` as a `.lab` file to `out`, naming it `file` in errors.
pub fn write_lab<W: Write>(model: &SparseModel, out: W, file: &str) -> Result<(), Error> {
    writing::check(model, file, FORMAT)?;
    let empty: &[u32] = &[];
    let mut labels: Vec<(&str, &[u32])> =
        vec![("init", &model.initial), ("deadlock", model.labelling.states("deadlock").unwrap_or(empty))];
    let mut others: Vec<(&str, &[u32])> = model
        .labelling
        .labels
        .iter()
        .filter(|(n, _)| n != "init" && n != "deadlock")
        .map(|(n, s)| (n.as_str(), s.as_slice()))
        .collect();
    others.sort_by(|a, b| a.0.cmp(b.0));
    labels.extend(others);
    if let Some((name, _)) = labels.iter().find(|(n, _)| n.contains(['"', '\n', '\r'])) {
        let reason = format!("the label {name:?} has a quote or line break");
        return Err(Error::Unwritable { file: file.into(), format: FORMAT, reason });
    }
    let mut out = Output::new(out, file);
    let mut buf = [0u8; 20];
    for (l, (name, _)) in labels.iter().enumerate() {
        if l > 0 {
            out.text.push(' ');
        }
        out.text.push_str(itoa(l as u64, &mut buf));
        out.text.push_str("=\"");
        out.text.push_str(name);
        out.text.push('"');
    }
    out.text.push('\n');
    let of_state = StateLabels::new(&labels, model.states());
    for s in 0..model.states() {
        let ls = of_state.of(s);
        if ls.is_empty() {
            continue;
        }
        out.text.push_str(itoa(s as u64, &mut buf));
        out.text.push(':');
        for &l in ls {
            out.text.push(' ');
            out.text.push_str(itoa(l as u64, &mut buf));
        }
        out.text.push('\n');
        out.flush_if_full()?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed(text: &str) -> (u64, usize, Problem) {
        match read_lab(text.as_bytes(), "t.lab", 4) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    const LAB: &str = "0=\"init\" 1=\"deadlock\" 2=\"a goal\"\n0: 0\n2: 2\n3: 0 2\n";

    #[test]
    fn reads_declared_labels() {
        let l = read_lab(LAB.as_bytes(), "t.lab", 4).unwrap();
        let names: Vec<&str> = l.labels.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["init", "deadlock", "a goal"]);
        assert_eq!(l.states("init"), Some(&[0, 3][..]));
        assert_eq!(l.states("deadlock"), Some(&[][..]));
        assert_eq!(l.states("a goal"), Some(&[2, 3][..]));
        assert_eq!(read_lab(&b""[..], "t.lab", 4).unwrap().labels, []);
    }

    #[test]
    fn errors_with_their_places() {
        assert_eq!(malformed("0=\"a\" 0=\"b\"\n"), (1, 7, Problem::Duplicate("label index 0".into())));
        assert_eq!(malformed("0=\"a\" 1=\"a\"\n"), (1, 7, Problem::Duplicate("label \"a\"".into())));
        assert!(matches!(malformed("0=\"a\" 1=b\n"), (1, 9, Problem::Expected { .. })));
        assert!(matches!(malformed("0=\"a\" 1=\"b\n"), (1, 11, Problem::Expected { .. })));
        assert!(matches!(malformed("0=\"a\" x\n"), (1, 7, Problem::Expected { .. })));
        assert_eq!(malformed("x=\"a\"\n"), (1, 1, Problem::BadInteger("x".into())));
        let case = |from: &str, to: &str| malformed(&LAB.replacen(from, to, 1));
        assert!(matches!(case("2: 2", "4: 2"), (3, 1, Problem::OutOfRange { what: "state", index: 4, .. })));
        assert_eq!(case("2: 2", "0: 2"), (3, 1, Problem::StateRepeated { previous: 0, found: 0 }));
        assert_eq!(case("3: 0 2", "1: 0 2"), (4, 1, Problem::StateRepeated { previous: 2, found: 1 }));
        assert!(matches!(case("3: 0 2", "3: 0 7"), (4, 6, Problem::OutOfRange { what: "label index", index: 7, .. })));
        assert_eq!(case("3: 0 2", "3: 0 y"), (4, 6, Problem::BadInteger("y".into())));
        assert!(matches!(case("3: 0 2", "3 0 2"), (4, 1, Problem::Expected { .. })));
    }

    #[test]
    fn writes_init_and_deadlock_first() {
        let mut m = SparseModel::new(crate::ModelType::Dtmc);
        for s in 0..4 {
            m.push_row(None);
            m.push_entry(s, 1.0);
            m.end_state();
        }
        m.initial = vec![0, 3];
        m.labelling.set("z", vec![3]);
        m.labelling.set("a goal", vec![2, 3]);
        let mut out = Vec::new();
        write_lab(&m, &mut out, "o.lab").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0=\"init\" 1=\"deadlock\" 2=\"a goal\" 3=\"z\"\n0: 0\n2: 2\n3: 0 2 3\n"
        );
    }
}
