//! PRISM's `.sta` file, the variable values of every state: a first line naming the
//! variables (`(x,y,b)`), then `<state>:(<values>)` for every state in order, with
//! integers and `true`/`false` for Booleans. A variable is Boolean if its value in
//! state 0 is; it must keep its type in every state.

use std::io::{BufRead, Write};

use crate::error::{Error, Problem};
use crate::sparse::Valuations;
use crate::text::{Line, Lines};
use crate::writing::{itoa, Output};

use super::FORMAT;

/// The text between the parentheses of `text` (trimmed), or an error.
fn parenthesised<'a>(line: &Line, text: &'a str) -> Result<&'a str, Error> {
    let text = text.trim();
    let Some(inner) = text.strip_prefix('(') else {
        return Err(line.expected(text, "`(`"));
    };
    let Some(inner) = inner.strip_suffix(')') else {
        return Err(line.expected_at_end("`)` at the end of the line"));
    };
    Ok(inner)
}

/// The comma-separated items of `inner` (none when it is blank), trimmed.
fn items(inner: &str) -> impl Iterator<Item = &str> {
    let blank = inner.trim().is_empty();
    inner.split(',').map(str::trim).filter(move |_| !blank)
}

/// Reads a `.sta` file for a model of `states` states, naming it `file` in errors.
pub fn read_sta<R: BufRead>(input: R, file: &str, states: usize) -> Result<Valuations, Error> {
    let mut lines = Lines::new(input, file);
    let mut valuations = Valuations::default();
    {
        let Some(line) = lines.next_content("")? else {
            let problem =
                Problem::Expected { expected: "the variable names `(v1,v2,...)`", found: "end of file".into() };
            return Err(lines.end_error(problem));
        };
        for name in items(parenthesised(&line, line.text)?) {
            if name.is_empty() {
                return Err(line.expected(name, "a variable name"));
            }
            valuations.names.push(name.to_string());
        }
    }
    let variables = valuations.names.len();
    let mut next: u64 = 0;
    while let Some(line) = lines.next_content("")? {
        let Some((state_token, rest)) = line.text.split_once(':') else {
            return Err(line.expected(line.text.trim(), "`<state>:(<values>)`"));
        };
        let state_token = state_token.trim();
        let state = line.index(state_token)?;
        if state != next {
            return Err(line.error(state_token, Problem::StateOutOfOrder { expected: next, found: state }));
        }
        if state >= states as u64 {
            let bound = format!("{states} states");
            return Err(line.error(state_token, Problem::OutOfRange { what: "state", index: state, bound }));
        }
        let mut count = 0;
        for (i, token) in items(parenthesised(&line, rest)?).enumerate() {
            if i >= variables {
                return Err(line.expected(token, "`)`: no more values than variables"));
            }
            let (value, boolean) = match token {
                "true" => (1, true),
                "false" => (0, true),
                _ => match token.parse::<i64>() {
                    Ok(v) => (v, false),
                    Err(_) => {
                        let problem = Problem::BadValue { expected: "an integer or true/false", found: token.into() };
                        return Err(line.error(token, problem));
                    }
                },
            };
            if state == 0 {
                valuations.booleans.push(boolean);
            } else if valuations.booleans[i] != boolean {
                let expected = if boolean { "an integer, as in state 0" } else { "true or false, as in state 0" };
                return Err(line.error(token, Problem::BadValue { expected, found: token.into() }));
            }
            valuations.values.push(value);
            count += 1;
        }
        if count < variables {
            return Err(line.expected_at_end("one value per variable"));
        }
        next += 1;
    }
    if next != states as u64 {
        let problem = Problem::ModelMismatch { what: "states", found: next, model: states as u64 };
        return Err(lines.end_error(problem));
    }
    Ok(valuations)
}

/// Writes `valuations` of a model of `states` states as a `.sta` file to `out`, naming
/// it `file` in errors.
pub fn write_sta<W: Write>(valuations: &Valuations, states: usize, out: W, file: &str) -> Result<(), Error> {
    let variables = valuations.names.len();
    let unwritable = |reason: String| Error::Unwritable { file: file.into(), format: FORMAT, reason };
    if valuations.booleans.len() != variables || valuations.values.len() != variables * states {
        return Err(unwritable(format!(
            "{} names, {} Boolean flags and {} values for {states} states",
            variables,
            valuations.booleans.len(),
            valuations.values.len()
        )));
    }
    if let Some(name) = valuations.names.iter().find(|n| n.is_empty() || n.contains([',', '(', ')', '\n'])) {
        return Err(unwritable(format!("the variable name {name:?}")));
    }
    let mut out = Output::new(out, file);
    out.text.push('(');
    out.text.push_str(&valuations.names.join(","));
    out.text.push_str(")\n");
    let mut buf = [0u8; 20];
    for s in 0..states {
        out.text.push_str(itoa(s as u64, &mut buf));
        out.text.push_str(":(");
        let values = &valuations.values[s * variables..(s + 1) * variables];
        for (i, (&v, &boolean)) in values.iter().zip(&valuations.booleans).enumerate() {
            if i > 0 {
                out.text.push(',');
            }
            match (boolean, v) {
                (true, 0) => out.text.push_str("false"),
                (true, _) => out.text.push_str("true"),
                (false, _) => out.text.push_str(&v.to_string()),
            }
        }
        out.text.push_str(")\n");
        out.flush_if_full()?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed(text: &str) -> (u64, usize, Problem) {
        match read_sta(text.as_bytes(), "t.sta", 3) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    const STA: &str = "(x,b,y)\n0:(1,true,-2)\n1:(0,false,3)\n2:(5,true,0)\n";

    #[test]
    fn reads_and_writes() {
        let v = read_sta(STA.as_bytes(), "t.sta", 3).unwrap();
        assert_eq!(v.names, ["x", "b", "y"]);
        assert_eq!(v.booleans, [false, true, false]);
        assert_eq!(v.of(1), [0, 0, 3]);
        let mut out = Vec::new();
        write_sta(&v, 3, &mut out, "o.sta").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), STA);
        let none = Valuations::default();
        let mut out = Vec::new();
        write_sta(&none, 2, &mut out, "o.sta").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "()\n0:()\n1:()\n");
        assert_eq!(read_sta(&b"()\n0:()\n1:()\n"[..], "o.sta", 2).unwrap(), none);
    }

    #[test]
    fn errors_with_their_places() {
        assert!(matches!(malformed("x,y\n"), (1, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("(x,y\n"), (1, 5, Problem::Expected { .. })));
        assert!(matches!(malformed(""), (1, 1, Problem::Expected { .. })));
        let case = |from: &str, to: &str| malformed(&STA.replacen(from, to, 1));
        assert_eq!(case("1:(0", "2:(0"), (3, 1, Problem::StateOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(case("2:(5", "1:(5"), (4, 1, Problem::StateOutOfOrder { expected: 2, found: 1 }));
        assert_eq!(
            case("false", "maybe"),
            (3, 6, Problem::BadValue { expected: "an integer or true/false", found: "maybe".into() })
        );
        assert_eq!(
            case("false", "7"),
            (3, 6, Problem::BadValue { expected: "true or false, as in state 0", found: "7".into() })
        );
        assert_eq!(
            case("(5,true,0)", "(5,true)"),
            (4, 11, Problem::Expected { expected: "one value per variable", found: "end of line".into() })
        );
        assert!(matches!(case("(5,true,0)", "(5,true,0,1)"), (4, 13, Problem::Expected { .. })));
        assert_eq!(case("2:(5,true,0)\n", ""), (4, 1, Problem::ModelMismatch { what: "states", found: 2, model: 3 }));
        assert!(matches!(malformed(&format!("{STA}3:(1,true,1)\n")), (5, 1, Problem::OutOfRange { index: 3, .. })));
    }
}
