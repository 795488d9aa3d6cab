//! LTL helpers of the conformance suites: the reference verdicts of BEEM's property
//! files (`ltl-reference.csv`), BEEM's formulas through our translation, and an
//! independent check of a lasso counterexample.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use warpcheck_explore::Lasso;
use warpcheck_ltl::formula::{parse, Atom};
use warpcheck_ltl::propositions::Definition;
use warpcheck_model::{Model, Successors};

use crate::beem_xml::{ltl_formulas, LtlFormula};
use crate::{load_file, references};
use warpcheck_dve::DveModel;

/// The proposition names `formula` uses (BEEM's formulas name `model.xml`'s `<ap>`s).
fn names(formula: &str) -> Vec<String> {
    let f = parse(formula).unwrap_or_else(|e| panic!("BEEM formula `{formula}`: {}", e.render(formula)));
    f.atoms
        .into_iter()
        .filter_map(|(a, _)| match a {
            Atom::Name(n) => Some(n),
            Atom::Expression(_) => None,
        })
        .collect()
}

/// Every LTL formula of BEEM's `model.xml` files whose property file exists, with its
/// instance's states in `reference.csv` (if listed).
pub fn beem_formulas(beem: &Path) -> Vec<(LtlFormula, Option<u64>)> {
    let sizes: HashMap<String, u64> = references(beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let mut all = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(beem).expect("read the BEEM folder").flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs.into_iter().filter(|d| d.join("model.xml").is_file()) {
        for f in ltl_formulas(&dir, names) {
            if property_path(beem, &f.property_file()).is_file() {
                let size = sizes.get(&f.instance).copied();
                all.push((f, size));
            }
        }
    }
    all
}

/// The formula of `f` on its plain instance through the generic path: propositions
/// added to the instance as labels, the automaton of the negated formula wrapped
/// around it by [`warpcheck_model::Product`]. Returns the instance (with its labels)
/// and the automaton; check `Product::new(&instance.model, automaton)`.
pub fn formula_labels(beem: &Path, f: &LtlFormula) -> Result<(DveModel, warpcheck_model::Automaton), String> {
    let mut instance = load_file(&beem.join(f.instance.split('.').next().unwrap()).join(format!("{}.dve", f.instance)));
    let definitions = definitions(f);
    let translated = warpcheck_ltl::formula_automaton(&f.formula, &definitions, |e| instance.add_predicate(e))
        .map_err(|e| format!("{}: `{}`: {e}", f.property_file(), f.formula))?;
    Ok((instance, translated.automaton))
}

/// The propositions of `f` (BEEM's `model.xml`) as definitions.
fn definitions(f: &LtlFormula) -> Vec<Definition> {
    f.propositions
        .iter()
        .map(|(name, expression)| Definition {
            name: name.clone(),
            expression: expression.clone(),
            origin: "model.xml".into(),
        })
        .collect()
}

/// One row of `ltl-reference.csv`.
#[derive(Clone, Debug)]
pub struct LtlReference {
    /// `model.i.propN`.
    pub property_file: String,
    /// Whether the property holds (`yes`).
    pub holds: bool,
    /// Who decided it (`beem`, `ltsmin-3.1-cndfs`).
    pub source: String,
}

impl LtlReference {
    /// The instance without the property: `model.i`.
    pub fn instance(&self) -> &str {
        self.property_file.rsplit_once(".prop").map_or(&*self.property_file, |(i, _)| i)
    }
}

/// The property files named by `WARPCHECK_LTL_FILES` (a comma list), if it is set:
/// how the ignored LTL tests are pointed at chosen files.
pub fn named_files() -> Option<Vec<String>> {
    std::env::var("WARPCHECK_LTL_FILES").ok().map(|v| v.split(',').map(|f| f.trim().to_string()).collect())
}

/// Path of a property file `model.i.propN` in the BEEM folder.
pub fn property_path(beem: &Path, property_file: &str) -> PathBuf {
    let model = property_file.split_once('.').map_or(property_file, |(m, _)| m);
    beem.join(model).join(format!("{property_file}.dve"))
}

/// All rows of `ltl-reference.csv`.
pub fn ltl_references(beem: &Path) -> Vec<LtlReference> {
    let text = std::fs::read_to_string(beem.join("ltl-reference.csv")).expect("read ltl-reference.csv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert!(f.len() == 4 && matches!(f[2], "yes" | "no"), "bad row `{line}` in ltl-reference.csv");
            LtlReference { property_file: f[0].to_string(), holds: f[2] == "yes", source: f[3].to_string() }
        })
        .collect()
}

/// Every property file (`*.propN.dve`) in the BEEM folder, as `model.i.propN`, sorted.
pub fn all_property_files(beem: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(beem).expect("read the BEEM folder").flatten() {
        let Ok(entries) = std::fs::read_dir(dir.path()) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".dve").filter(|s| s.contains(".prop")) {
                files.push(stem.to_string());
            }
        }
    }
    files.sort();
    files
}

/// Checks, with a fresh successor worker, that `lasso` is a counterexample of `model`: the
/// stem starts in the initial state, every step is a successor of the state before,
/// the cycle has a step, returns to its first state and passes an accepting state.
pub fn validate_lasso<M: Model>(model: &M, lasso: &Lasso) -> Result<(), String> {
    let mut generator = model.successors();
    let mut is_step = |from: &[u32], to: &[u32]| {
        let mut found = false;
        generator.successors(from, |_, result| found |= result.is_ok_and(|s| s == to));
        found
    };
    if lasso.stem.initial != model.initial_state() {
        return Err("the stem does not start in the initial state".into());
    }
    let mut at = lasso.stem.initial.clone();
    for (i, step) in lasso.stem.steps.iter().chain(&lasso.cycle).enumerate() {
        if !is_step(&at, &step.state) {
            return Err(format!("step {} (`{}`) is not a successor of the state before", i + 1, step.step));
        }
        at = step.state.clone();
    }
    let start = lasso.stem.steps.last().map_or(&lasso.stem.initial, |s| &s.state);
    if lasso.cycle.is_empty() || &at != start {
        return Err(format!("the cycle ({} steps) does not return to its first state", lasso.cycle.len()));
    }
    if !lasso.cycle.iter().any(|s| model.is_accepting(&s.state)) {
        return Err("no state of the cycle is accepting".into());
    }
    if lasso.stem.error_step.is_some() {
        return Err("the stem ends in an evaluation error".into());
    }
    Ok(())
}
