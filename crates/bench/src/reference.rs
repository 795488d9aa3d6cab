//! The BEEM models of `../shared/beem`: where an instance's file is, and the oracle
//! files beside them: `reference.csv` (state-space sizes) and `ltl-reference.csv` (LTL
//! verdicts).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

/// One row of `reference.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub instance: String,
    pub states: u64,
    pub transitions: u64,
    /// Absent in rows computed by LTSmin.
    pub deadlocks: Option<u64>,
    pub accepting: Option<u64>,
    /// `divine-2.4` or `ltsmin-3.1`.
    pub source: String,
}

impl Reference {
    /// Whether warpcheck must run with `--overflow wrap` to reproduce this row: DiVinE
    /// 2.4 raises an error on an out-of-range assignment, LTSmin runs DiVinE's compiled
    /// C model, where values wrap (the rule of the conformance tests).
    pub fn wraps(&self) -> bool {
        self.source.starts_with("ltsmin")
    }
}

/// Splits a CSV header into its column indices by name.
fn columns(header: &str, wanted: &[&str], file: &str) -> Result<Vec<usize>> {
    let names: Vec<&str> = header.trim().split(',').map(str::trim).collect();
    wanted
        .iter()
        .map(|w| names.iter().position(|n| n == w).with_context(|| format!("{file}: no column `{w}` in `{header}`")))
        .collect()
}

/// Parses the text of `reference.csv`: instance name to row.
pub fn parse_reference(text: &str) -> Result<BTreeMap<String, Reference>> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else { bail!("reference.csv is empty") };
    let wanted = ["instance", "states", "transitions", "deadlocks", "accepting", "source"];
    let at = columns(header, &wanted, "reference.csv")?;
    let mut rows = BTreeMap::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let cell = |i: usize| cells.get(at[i]).copied().unwrap_or("");
        let number = |i: usize| -> Result<Option<u64>> {
            let c = cell(i);
            if c.is_empty() {
                return Ok(None);
            }
            c.parse().map(Some).with_context(|| format!("reference.csv line {}: `{c}` is not a count", n + 1))
        };
        let required = |i: usize| -> Result<u64> {
            number(i)?.with_context(|| format!("reference.csv line {}: no {}", n + 1, wanted[i]))
        };
        let row = Reference {
            instance: cell(0).to_string(),
            states: required(1)?,
            transitions: required(2)?,
            deadlocks: number(3)?,
            accepting: number(4)?,
            source: cell(5).to_string(),
        };
        if row.instance.is_empty() {
            bail!("reference.csv line {}: no instance name", n + 1);
        }
        rows.insert(row.instance.clone(), row);
    }
    Ok(rows)
}

/// Parses the text of `ltl-reference.csv`: property file name (`anderson.3.prop2`) to
/// whether the property holds (`reference_answer` `yes`).
pub fn parse_ltl_reference(text: &str) -> Result<BTreeMap<String, bool>> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else { bail!("ltl-reference.csv is empty") };
    let at = columns(header, &["property_file", "reference_answer"], "ltl-reference.csv")?;
    let mut rows = BTreeMap::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let file = cells.get(at[0]).copied().unwrap_or("");
        let holds = match cells.get(at[1]).copied().unwrap_or("") {
            "yes" => true,
            "no" => false,
            other => bail!("ltl-reference.csv line {}: answer `{other}` is neither yes nor no", n + 1),
        };
        rows.insert(file.to_string(), holds);
    }
    Ok(rows)
}

/// The BEEM folder `dir`, or a clear error when it is missing.
pub fn beem_dir(dir: &Path) -> Result<&Path> {
    if !dir.is_dir() {
        bail!(
            "the BEEM models are not at `{}`: run from the repository root (next to ../shared) or pass --beem DIR",
            dir.display()
        );
    }
    Ok(dir)
}

/// `reference.csv` of the BEEM folder `dir`.
pub fn load_reference(dir: &Path) -> Result<BTreeMap<String, Reference>> {
    let path = beem_dir(dir)?.join("reference.csv");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
    parse_reference(&text).with_context(|| format!("in `{}`", path.display()))
}

/// `ltl-reference.csv` of the BEEM folder `dir`.
pub fn load_ltl_reference(dir: &Path) -> Result<BTreeMap<String, bool>> {
    let path = beem_dir(dir)?.join("ltl-reference.csv");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
    parse_ltl_reference(&text).with_context(|| format!("in `{}`", path.display()))
}

/// The file of a BEEM instance or property file (`adding.6`, `elevator2.3.prop4`):
/// `DIR/<model>/<name>.dve`.
pub fn instance_path(dir: &Path, name: &str) -> PathBuf {
    let model = name.split('.').next().unwrap_or(name);
    dir.join(model).join(format!("{name}.dve"))
}

/// The instance or property-file name of a model path: its file name without `.dve`.
pub fn name_of(path: &Path) -> String {
    let file = path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
    file.strip_suffix(".dve").map_or(file.clone(), str::to_string)
}

/// The instance of a property file (`elevator2.3.prop4` to `elevator2.3`).
pub fn instance_of_property(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((instance, prop)) if prop.starts_with("prop") => instance,
        _ => name,
    }
}

/// A name (looked up under `dir`) or a path: the model file to run.
pub fn resolve(dir: &Path, name_or_path: &str) -> Result<PathBuf> {
    let as_path = Path::new(name_or_path);
    if name_or_path.ends_with(".dve") || name_or_path.contains('/') {
        if !as_path.is_file() {
            bail!("no model file `{name_or_path}`");
        }
        return Ok(as_path.to_path_buf());
    }
    let path = instance_path(beem_dir(dir)?, name_or_path);
    if !path.is_file() {
        bail!("no BEEM model `{name_or_path}`: `{}` does not exist", path.display());
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "instance,states,transitions,deadlocks,accepting,source,beem_states\n\
                       adding.1,7372,11144,1130,0,divine-2.4,7372\n\
                       anderson.3,131777303,388237977,,,ltsmin-3.1,75573925\n";

    #[test]
    fn reference_rows() {
        let r = parse_reference(CSV).unwrap();
        assert_eq!(r.len(), 2);
        let a = &r["adding.1"];
        assert_eq!((a.states, a.transitions, a.deadlocks, a.accepting), (7372, 11144, Some(1130), Some(0)));
        assert!(!a.wraps());
        let b = &r["anderson.3"];
        assert_eq!((b.states, b.transitions, b.deadlocks), (131777303, 388237977, None));
        assert!(b.wraps());
    }

    #[test]
    fn reference_columns_by_name() {
        let csv = "source,instance,transitions,states,deadlocks,accepting\ndivine-2.4,x.1,5,3,,\n";
        let r = parse_reference(csv).unwrap();
        assert_eq!((r["x.1"].states, r["x.1"].transitions), (3, 5));
    }

    #[test]
    fn bad_reference_is_an_error() {
        assert!(parse_reference("").is_err());
        assert!(parse_reference("instance,states\n").is_err());
        let bad = "instance,states,transitions,deadlocks,accepting,source\nx.1,many,5,,,divine-2.4\n";
        let e = parse_reference(bad).unwrap_err();
        assert!(format!("{e:#}").contains("`many` is not a count"), "{e:#}");
        let missing = "instance,states,transitions,deadlocks,accepting,source\nx.1,,5,,,divine-2.4\n";
        assert!(parse_reference(missing).is_err());
    }

    #[test]
    fn ltl_reference() {
        let csv =
            "property_file,beem_answer,reference_answer,source\na.3.prop2,unknown,no,ltsmin\nb.1.prop3,yes,yes,beem\n";
        let r = parse_ltl_reference(csv).unwrap();
        assert_eq!(r.get("a.3.prop2"), Some(&false));
        assert_eq!(r.get("b.1.prop3"), Some(&true));
        assert!(parse_ltl_reference("property_file,reference_answer\nx,maybe\n").is_err());
    }

    #[test]
    fn names_and_paths() {
        let dir = Path::new("/b");
        assert_eq!(instance_path(dir, "leader_election.5"), Path::new("/b/leader_election/leader_election.5.dve"));
        assert_eq!(instance_path(dir, "elevator2.3.prop4"), Path::new("/b/elevator2/elevator2.3.prop4.dve"));
        assert_eq!(name_of(Path::new("x/y/adding.6.dve")), "adding.6");
        assert_eq!(name_of(Path::new("graph.wcg")), "graph.wcg");
        assert_eq!(instance_of_property("elevator2.3.prop4"), "elevator2.3");
        assert_eq!(instance_of_property("adding.6"), "adding.6");
    }
}
