//! A network written back as files: one `.aut` per component (its reachable part,
//! states renumbered from 0) and an `.exp` with one vector per group, which means the
//! same product under the default EXP semantics (a label that fired alone becomes a
//! one-component vector).

use std::fmt::Write;

use crate::error::{Error, Result};
use crate::network::Network;

/// The files of `net` as `(file name, text)`: `{name}.exp` and one `.aut` per
/// component.
pub fn files(net: &Network, name: &str) -> Result<Vec<(String, String)>> {
    if net.monitor.is_some() {
        return Err(Error::Invalid("a network with a monitor cannot be written as .exp".into()));
    }
    let quote = |l: &str| -> Result<String> {
        if l.contains('"') || l.contains('\n') {
            return Err(Error::Invalid(format!("label {l:?} holds a quote or a line break, which EXP cannot write")));
        }
        Ok(format!("\"{l}\""))
    };
    let mut out = Vec::new();
    let mut names = Vec::new();
    for c in &net.components {
        let file: String =
            c.name.chars().map(|ch| if ch.is_ascii_alphanumeric() || "._-".contains(ch) { ch } else { '_' }).collect();
        let mut file = format!("{file}.aut");
        while names.contains(&file) {
            file = format!("_{file}");
        }
        for l in &c.labels {
            quote(l)?;
        }
        out.push((file.clone(), c.to_lts().to_aut("i")));
        names.push(file);
    }
    let n = net.components.len();
    let mut exp = format!("(* {name}: written by warpcheck *)\npar using\n");
    let mut vectors = Vec::new();
    for g in &net.groups {
        let mut elements = vec!["_".to_string(); n];
        for &(c, l) in &g.parts {
            elements[c as usize] = quote(&net.components[c as usize].labels[l as usize])?;
        }
        vectors.push(format!("    {} -> {}", elements.join(" * "), quote(net.label_name(g.label))?));
    }
    exp += &vectors.join(",\n");
    let operands: Vec<String> = names.iter().map(|f| format!("\"{f}\"")).collect();
    let _ = write!(exp, "\nin\n    {}\nend par\n", operands.join("\n    || "));
    out.insert(0, (format!("{name}.exp"), exp));
    Ok(out)
}
