//! Atomic propositions: definitions of names (`--ap NAME=EXPR`, a file of them, or
//! BEEM's `model.xml` `<ap>` elements) and the resolution of a formula's propositions
//! to expression texts, which the caller compiles in its model's language.

use std::ops::Range;

use crate::formula::{is_name, Atom, Formula};

/// A named atomic proposition: `name` stands for the expression `expression`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub expression: String,
    /// Where it was defined (`--ap`, `file.xml`, `file:3`), for messages.
    pub origin: String,
}

/// A bad definition or an undefined name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PropositionError {
    #[error("{origin}: {message}")]
    BadDefinition { origin: String, message: String },
    #[error("unknown atomic proposition `{name}`: define it with --ap {name}=EXPR or --ap-file, or write a DVE expression in double quotes")]
    Unknown { name: String, span: Range<usize> },
}

fn bad(origin: &str, message: impl Into<String>) -> PropositionError {
    PropositionError::BadDefinition { origin: origin.to_string(), message: message.into() }
}

fn definition(origin: &str, name: &str, expression: &str) -> Result<Definition, PropositionError> {
    let (name, expression) = (name.trim(), expression.trim());
    if !is_name(name) {
        return Err(bad(
            origin,
            format!("`{name}` cannot name an atomic proposition: names are `[a-z_][a-z0-9_]*` (upper-case letters are operators), other than `true` and `false`"),
        ));
    }
    if expression.is_empty() {
        return Err(bad(origin, format!("`{name}` has an empty expression")));
    }
    Ok(Definition { name: name.to_string(), expression: expression.to_string(), origin: origin.to_string() })
}

/// `NAME=EXPR` (the argument of `--ap`).
pub fn parse_argument(text: &str) -> Result<Definition, PropositionError> {
    let Some((name, expression)) = text.split_once('=') else {
        return Err(bad("--ap", format!("expected NAME=EXPR, found `{text}`")));
    };
    definition("--ap", name, expression)
}

/// The definitions of a file named `origin`: BEEM's `model.xml` (every `<ap>` with its
/// `<ap-name>` and `<ap-expression>`) when the text starts with `<`, else one
/// `NAME = EXPR` per line (blank lines and lines starting with `#` ignored).
pub fn parse_file(origin: &str, text: &str) -> Result<Vec<Definition>, PropositionError> {
    if text.trim_start().starts_with('<') {
        return parse_xml(origin, text);
    }
    let mut definitions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let here = format!("{origin}:{}", i + 1);
        let Some((name, expression)) = line.split_once('=') else {
            return Err(bad(&here, format!("expected NAME = EXPR, found `{line}`")));
        };
        definitions.push(definition(&here, name, expression)?);
    }
    Ok(definitions)
}

fn parse_xml(origin: &str, text: &str) -> Result<Vec<Definition>, PropositionError> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let doc = roxmltree::Document::parse_with_options(text, options)
        .map_err(|e| bad(origin, format!("not well-formed XML: {e}")))?;
    let mut definitions = Vec::new();
    for ap in doc.descendants().filter(|n| n.has_tag_name("ap")) {
        let line = doc.text_pos_at(ap.range().start).row;
        let here = format!("{origin}:{line}");
        let child = |tag: &str| ap.children().find(|c| c.has_tag_name(tag)).and_then(|c| c.text()).map(str::trim);
        let (Some(name), Some(expression)) = (child("ap-name"), child("ap-expression")) else {
            return Err(bad(&here, "an <ap> needs an <ap-name> and an <ap-expression>"));
        };
        definitions.push(definition(&here, name, expression)?);
    }
    if definitions.is_empty() {
        return Err(bad(origin, "no <ap> definitions in this XML file"));
    }
    Ok(definitions)
}

/// A proposition of a formula resolved to the text of its expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// As written in the formula (`cs0`, `"P_0.CS"`).
    pub written: String,
    pub expression: String,
    /// `--ap`, `file:3`, or `formula` for a quoted expression.
    pub origin: String,
}

/// The expression of each of the formula's propositions, in order (`Ltl::Ap(i)` is the
/// `i`-th). A name defined more than once takes its last definition.
pub fn resolve(formula: &Formula, definitions: &[Definition]) -> Result<Vec<Resolved>, PropositionError> {
    formula
        .atoms
        .iter()
        .map(|(atom, span)| match atom {
            Atom::Expression(e) => {
                Ok(Resolved { written: atom.to_string(), expression: e.clone(), origin: "formula".into() })
            }
            Atom::Name(n) => match definitions.iter().rev().find(|d| &d.name == n) {
                Some(d) => {
                    Ok(Resolved { written: n.clone(), expression: d.expression.clone(), origin: d.origin.clone() })
                }
                None => Err(PropositionError::Unknown { name: n.clone(), span: span.clone() }),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::parse;

    #[test]
    fn arguments_and_files() {
        let d = parse_argument("cs0 = P_0.CS").unwrap();
        assert_eq!((d.name.as_str(), d.expression.as_str()), ("cs0", "P_0.CS"));
        assert_eq!(parse_argument("one=x==1").unwrap().expression, "x==1");
        assert!(parse_argument("Wait=1").unwrap_err().to_string().contains("cannot name"));
        assert!(parse_argument("wait").unwrap_err().to_string().contains("NAME=EXPR"));
        let defs = parse_file("aps.txt", "# comment\n\nwait0 = P_0.wait or P_0.q2\ncs0=P_0.CS\n").unwrap();
        assert_eq!(defs.len(), 2);
        assert_eq!(defs[1].origin, "aps.txt:4");
        let e = parse_file("aps.txt", "a = 1\nb\n").unwrap_err();
        assert_eq!(e.to_string(), "aps.txt:2: expected NAME = EXPR, found `b`");
    }

    #[test]
    fn beem_model_xml() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE model SYSTEM "../model.dtd">
<model>
  <ap>
    <ap-name>cs0</ap-name>
    <ap-expression>P_0.CS</ap-expression>
  </ap>
  <ap parametrized="yes"><ap-name>n</ap-name><ap-expression> x &lt; 3 </ap-expression></ap>
  <property id="2" prop-type="LTL"><formula>G cs0</formula></property>
</model>"#;
        let defs = parse_file("model.xml", xml).unwrap();
        assert_eq!(defs.len(), 2);
        assert_eq!(
            (defs[1].name.as_str(), defs[1].expression.as_str(), defs[1].origin.as_str()),
            ("n", "x < 3", "model.xml:8")
        );
        assert!(parse_file("m.xml", "<model><ap></model>")
            .unwrap_err()
            .to_string()
            .starts_with("m.xml: not well-formed"));
        assert!(parse_file("m.xml", "<model/>").is_err());
    }

    #[test]
    fn resolution() {
        let f = parse("G (a -> F \"P_0.CS\") && b").unwrap();
        let defs =
            [parse_argument("a=x == 1").unwrap(), parse_argument("b=y").unwrap(), parse_argument("a=x == 2").unwrap()];
        let r = resolve(&f, &defs).unwrap();
        let texts: Vec<&str> = r.iter().map(|r| r.expression.as_str()).collect();
        assert_eq!(texts, ["x == 2", "P_0.CS", "y"]);
        let e = resolve(&f, &defs[..1]).unwrap_err();
        assert_eq!(e, PropositionError::Unknown { name: "b".into(), span: 23..24 });
    }
}
