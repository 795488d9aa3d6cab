//! BEEM's `model.xml` and `results.xml`: atomic propositions, reachability properties
//! and instance parameters, and the published `reach-goal` answers; with the small
//! subset of m4 that BEEM's propositions use (`myloop`, `decr`, parameter names and
//! m4 quotes) to expand a proposition for one instance.

use std::collections::HashMap;
use std::path::Path;

/// A reachability property of one instance, as an invariant, with BEEM's answer.
#[derive(Clone, Debug)]
pub struct ReachGoal {
    pub instance: String,
    pub property: u32,
    /// `not (goal)`, the goal's propositions expanded for the instance.
    pub invariant: String,
    /// BEEM's answer: the goal is reachable (`Some(true)`), unreachable, or unknown
    /// (`None`: BEEM did not decide it).
    pub reachable: Option<bool>,
    /// The counterexample length BEEM recorded.
    pub length: usize,
}

fn parse_xml(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn document(text: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    roxmltree::Document::parse_with_options(text, options).expect("well-formed BEEM XML")
}

fn child_text<'a>(node: roxmltree::Node<'a, 'a>, name: &str) -> Option<&'a str> {
    node.children().find(|c| c.has_tag_name(name)).and_then(|c| c.text()).map(str::trim)
}

/// Every reachability goal of the BEEM folder `beem` whose instance has a reference
/// row with a state count in `states`, sorted by instance and property.
pub fn reach_goals_in(beem: &Path, states: std::ops::RangeInclusive<u64>) -> Vec<ReachGoal> {
    let sizes: HashMap<String, u64> = crate::references(beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let mut goals = Vec::new();
    for entry in std::fs::read_dir(beem).expect("read the BEEM folder") {
        let dir = entry.expect("read the BEEM folder").path();
        if dir.join("model.xml").is_file() && dir.join("results.xml").is_file() {
            goals.extend(reach_goals(&dir));
        }
    }
    goals.retain(|g| sizes.get(&g.instance).is_some_and(|s| states.contains(s)));
    goals.sort_by(|a, b| (&a.instance, a.property).cmp(&(&b.instance, b.property)));
    goals
}

/// Every reachability property of every instance of the model in `dir` that BEEM
/// explored completely and answered.
pub fn reach_goals(dir: &Path) -> Vec<ReachGoal> {
    let model_name = dir.file_name().unwrap().to_string_lossy().to_string();
    let model_xml = parse_xml(&dir.join("model.xml"));
    let results_xml = parse_xml(&dir.join("results.xml"));
    let model = document(&model_xml);
    let results = document(&results_xml);
    let aps: HashMap<&str, &str> = model
        .descendants()
        .filter(|n| n.has_tag_name("ap"))
        .filter_map(|n| Some((child_text(n, "ap-name")?, child_text(n, "ap-expression")?)))
        .collect();
    let properties: HashMap<u32, &str> = model
        .descendants()
        .filter(|n| n.has_tag_name("property") && n.attribute("prop-type") == Some("reachability"))
        .filter_map(|n| Some((n.attribute("id")?.parse().ok()?, child_text(n, "formula")?)))
        .collect();
    let parameters: HashMap<&str, HashMap<String, i64>> = model
        .descendants()
        .filter(|n| n.has_tag_name("instance"))
        .filter_map(|n| Some((n.attribute("id")?, parse_parameters(child_text(n, "parameters").unwrap_or("")))))
        .collect();
    let mut goals = Vec::new();
    for instance in results.descendants().filter(|n| n.has_tag_name("instance")) {
        let Some(id) = instance.attribute("id") else { continue };
        let complete =
            instance.children().any(|c| c.has_tag_name("reach-time") && c.attribute("complete") == Some("yes"));
        if !complete {
            continue;
        }
        let params = parameters.get(id).cloned().unwrap_or_default();
        for goal in instance.children().filter(|c| c.has_tag_name("reach-goal")) {
            let property: u32 = goal.attribute("prop-id").and_then(|p| p.parse().ok()).expect("prop-id");
            let Some(formula) = properties.get(&property) else { continue };
            let expression = expand_formula(formula, &aps, &params);
            goals.push(ReachGoal {
                instance: format!("{model_name}.{id}"),
                property,
                invariant: format!("not ({expression})"),
                reachable: match goal.attribute("answer") {
                    Some("yes") => Some(true),
                    Some("no") => Some(false),
                    _ => None,
                },
                length: goal.attribute("length").and_then(|l| l.parse().ok()).unwrap_or(0),
            });
        }
    }
    goals
}

/// An LTL property of `model.xml` for one instance, with its propositions expanded.
#[derive(Clone, Debug)]
pub struct LtlFormula {
    /// `model.i`.
    pub instance: String,
    /// The property's id: its property file is `model.i.prop<id>.dve`.
    pub property: u32,
    /// As written in `model.xml`.
    pub formula: String,
    /// Every proposition of `model.xml` the formula names, expanded for the instance:
    /// `(name, expression)`.
    pub propositions: Vec<(String, String)>,
}

impl LtlFormula {
    /// `model.i.propN`, the name of the corresponding property file.
    pub fn property_file(&self) -> String {
        format!("{}.prop{}", self.instance, self.property)
    }
}

/// Every LTL property of `model.xml` in `dir` for every instance it lists.
/// `names` gives the proposition names a formula uses (the caller's parser).
pub fn ltl_formulas(dir: &Path, names: impl Fn(&str) -> Vec<String>) -> Vec<LtlFormula> {
    let model_name = dir.file_name().unwrap().to_string_lossy().to_string();
    let model_xml = parse_xml(&dir.join("model.xml"));
    let model = document(&model_xml);
    let aps: HashMap<&str, &str> = model
        .descendants()
        .filter(|n| n.has_tag_name("ap"))
        .filter_map(|n| Some((child_text(n, "ap-name")?, child_text(n, "ap-expression")?)))
        .collect();
    let properties: Vec<(u32, &str)> = model
        .descendants()
        .filter(|n| n.has_tag_name("property") && n.attribute("prop-type") == Some("LTL"))
        .filter_map(|n| Some((n.attribute("id")?.parse().ok()?, child_text(n, "formula")?)))
        .collect();
    let mut formulas = Vec::new();
    for instance in model.descendants().filter(|n| n.has_tag_name("instance")) {
        let Some(id) = instance.attribute("id") else { continue };
        let params = parse_parameters(child_text(instance, "parameters").unwrap_or(""));
        for &(property, formula) in &properties {
            let propositions = names(formula)
                .into_iter()
                .filter_map(|name| Some((name.clone(), expand_m4(aps.get(name.as_str())?, &params))))
                .collect();
            formulas.push(LtlFormula {
                instance: format!("{model_name}.{id}"),
                property,
                formula: formula.to_string(),
                propositions,
            });
        }
    }
    formulas
}

/// `N=3, K1=2` to a map.
fn parse_parameters(text: &str) -> HashMap<String, i64> {
    text.split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.trim().to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// A property formula (propositions combined with `&&`, `||`, `!`, `not`) as a DVE
/// expression: each proposition replaced by its expanded expression, textually, as
/// BEEM's m4 did. (Parenthesising them changes one answer: `brp2`'s property 1,
/// `rfsf && (not rb1)` with `rb1` = `(Receiver->triple & 4) == 4`, is read by BEEM as
/// `not (Receiver->triple & 4) == 4`, which is always false; with parentheses the goal
/// is reachable in brp2.1-5, by a 60-step counterexample in brp2.1.)
fn expand_formula(formula: &str, aps: &HashMap<&str, &str>, params: &HashMap<String, i64>) -> String {
    map_words(
        formula,
        |word| aps.get(word).map_or_else(|| word.to_string(), |e| expand_m4(e, params)),
        |c, out| match c {
            '!' => out.push_str("not "),
            c => out.push(c),
        },
    )
}

/// Rewrites `text` m4 word by m4 word (letters, digits and `_`): `word` maps each word,
/// `other` writes each other character.
fn map_words(text: &str, word: impl Fn(&str) -> String, other: impl Fn(char, &mut String)) -> String {
    let mut out = String::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            current.push(c);
            continue;
        }
        if !current.is_empty() {
            out.push_str(&word(&current));
            current.clear();
        }
        other(c, &mut out);
    }
    if !current.is_empty() {
        out.push_str(&word(&current));
    }
    out
}

/// Expands BEEM's m4: `myloop(var, from, to, body, separator)`, `decr(e)`, parameter
/// names, and removes m4 quotes (`` ` `` and `'`).
pub fn expand_m4(text: &str, params: &HashMap<String, i64>) -> String {
    let mut text = text.to_string();
    while let Some(start) = text.find("myloop(") {
        let (args, end) = call_args(&text, start + "myloop(".len());
        let var = args[0].trim();
        let number = |s: &str| -> i64 {
            let s = substitute(s, params);
            let s = s.trim();
            s.parse().unwrap_or_else(|_| panic!("myloop bound `{s}` is not a number"))
        };
        let (from, to) = (number(&args[1]), number(&args[2]));
        let body = unquote_once(args[3].trim());
        let separator = unquote_once(args[4].trim_start());
        let mut vars = params.clone();
        let parts: Vec<String> = (from..=to)
            .map(|i| {
                vars.insert(var.to_string(), i);
                substitute(&body, &vars)
            })
            .collect();
        text.replace_range(start..end, &parts.join(&separator));
    }
    substitute(&text, params).replace(['`', '\''], "")
}

/// Arguments of a call whose `(` ends just before `from`: split at top-level commas,
/// respecting parentheses and m4 quotes. Returns them and the index after `)`.
fn call_args(text: &str, from: usize) -> (Vec<String>, usize) {
    let (mut depth, mut quote) = (0, 0);
    let mut args = vec![String::new()];
    for (i, c) in text[from..].char_indices() {
        match c {
            '`' => quote += 1,
            '\'' if quote > 0 => quote -= 1,
            '(' if quote == 0 => depth += 1,
            ')' if quote == 0 && depth == 0 => return (args, from + i + 1),
            ')' if quote == 0 => depth -= 1,
            ',' if quote == 0 && depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().unwrap().push(c);
    }
    panic!("unbalanced m4 call in `{text}`")
}

/// Removes one level of m4 quotes around a whole argument.
fn unquote_once(s: &str) -> String {
    match s.strip_prefix('`').and_then(|s| s.strip_suffix('\'')) {
        Some(inner) => inner.to_string(),
        None => s.to_string(),
    }
}

/// Replaces m4 words that are parameters by their values and `decr(x)` by `x - 1`.
fn substitute(text: &str, vars: &HashMap<String, i64>) -> String {
    let mut out = map_words(
        text,
        |word| vars.get(word).map_or_else(|| word.to_string(), |v| v.to_string()),
        |c, out| out.push(c),
    );
    // decr(n) with a number inside.
    while let Some(start) = out.find("decr(") {
        let (args, end) = call_args(&out, start + "decr(".len());
        let n: i64 = args[0].trim().parse().unwrap_or_else(|_| panic!("decr of `{}`", args[0]));
        out.replace_range(start..end, &(n - 1).to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_beem_m4() {
        let params: HashMap<String, i64> = [("N".to_string(), 3), ("X".to_string(), 7)].into();
        assert_eq!(expand_m4("myloop(i,0,decr(N), `P_`'i.CS', ` + ') > 1 ", &params), "P_0.CS + P_1.CS + P_2.CS > 1 ");
        assert_eq!(
            expand_m4("myloop(i,0,decr(N), `P_`'i.elected', ` or ')", &params),
            "P_0.elected or P_1.elected or P_2.elected"
        );
        assert_eq!(expand_m4("Bottle_1.q`'X", &params), "Bottle_1.q7");
        assert_eq!(expand_m4("c_act==N", &params), "c_act==3");
    }

    #[test]
    fn formulas_become_expressions() {
        let aps: HashMap<&str, &str> = [("a", "x == 1"), ("b", "P.s")].into();
        let e = expand_formula("a && (! b)", &aps, &HashMap::new());
        assert_eq!(e, "x == 1 && (not  P.s)");
    }
}
