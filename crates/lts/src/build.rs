//! From an `.exp` syntax tree (or a single `.aut`) to a [`Network`]: reads the
//! component files, applies component `rename`/`cut`/`hide`, turns the vectors into
//! groups under the chosen semantics, then applies the network's own `hide`, `cut`
//! and `rename` to the groups' labels (spec §2.2–2.5).

use std::path::{Path, PathBuf};

use regex::Regex;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::aut::{self, AutOptions, Lts, TAU};
use crate::component::{Component, Relabel};
use crate::error::{Error, Result};
use crate::exp::lexer::error_at;
use crate::exp::{self, Behaviour, Vector};
use crate::network::{Counting, Group, Network, Sync};

/// How a network is read and what it means.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub aut: AutOptions,
    pub sync: Sync,
    /// Labels that always fire alone (`--free`), matched against the whole label.
    pub free: Option<Regex>,
    /// The labels of `hide`, `cut` and `rename` are regular expressions, each matched
    /// against the whole label (`--exp-regex`, CADP's reading); a `rename`'s target may
    /// name the pattern's groups as `\1`..`\9`. Else they are literal strings.
    pub exp_regex: bool,
    pub counting: Counting,
}

impl Options {
    /// Compiles `--free REGEX` (anchored at both ends).
    pub fn free_regex(pattern: &str) -> Result<Regex> {
        Regex::new(&format!("^(?:{pattern})$")).map_err(|e| Error::Invalid(format!("--free {pattern}: {e}")))
    }
}

/// Which labels a `hide` or `cut` names: literal strings, or anchored regular
/// expressions (`--exp-regex`).
enum Labels {
    Literal(FxHashSet<String>),
    Patterns(Vec<Regex>),
}

impl Labels {
    fn new(labels: &[String], regex: bool) -> Result<Labels> {
        if !regex {
            return Ok(Labels::Literal(labels.iter().cloned().collect()));
        }
        Ok(Labels::Patterns(labels.iter().map(|l| pattern(l)).collect::<Result<_>>()?))
    }

    fn contains(&self, name: &str) -> bool {
        match self {
            Labels::Literal(set) => set.contains(name),
            Labels::Patterns(res) => res.iter().any(|r| r.is_match(name)),
        }
    }
}

/// An EXP label as an anchored regular expression.
fn pattern(label: &str) -> Result<Regex> {
    Regex::new(&format!("^(?:{label})$"))
        .map_err(|e| Error::Invalid(format!("--exp-regex: \"{label}\" is not a regular expression: {e}")))
}

/// A label operation of the network, outermost last.
enum LabelOp {
    Hide {
        all_but: bool,
        labels: Labels,
    },
    Cut(Labels),
    Rename(FxHashMap<String, String>),
    /// `--exp-regex`: the first pattern that matches, and its target (`\N` as `${N}`).
    RenamePatterns(Vec<(Regex, String)>),
}

impl LabelOp {
    fn of(b: &Behaviour, regex: bool) -> Result<Option<(LabelOp, &Behaviour)>> {
        Ok(Some(match b {
            Behaviour::Hide { all_but, labels, body } => {
                (LabelOp::Hide { all_but: *all_but, labels: Labels::new(labels, regex)? }, body)
            }
            Behaviour::Cut { labels, body } => (LabelOp::Cut(Labels::new(labels, regex)?), body),
            Behaviour::Rename { pairs, body } if regex => {
                let mut rules = Vec::new();
                for (from, to) in pairs {
                    // `\1` is CADP's group reference; `$` is literal there.
                    let target = to.replace('$', "$$");
                    let target = (1..=9).fold(target, |t, k| t.replace(&format!("\\{k}"), &format!("${{{k}}}")));
                    rules.push((pattern(from)?, target));
                }
                (LabelOp::RenamePatterns(rules), body)
            }
            Behaviour::Rename { pairs, body } => (LabelOp::Rename(pairs.iter().cloned().collect()), body),
            _ => return Ok(None),
        }))
    }

    fn apply(&self, name: &str) -> Relabel {
        match self {
            LabelOp::Hide { all_but, labels } if labels.contains(name) != *all_but => Relabel::Tau,
            LabelOp::Cut(labels) if labels.contains(name) => Relabel::Cut,
            LabelOp::Rename(map) => map.get(name).map_or(Relabel::Keep, |n| Relabel::To(n.clone())),
            LabelOp::RenamePatterns(rules) => match rules.iter().find(|(r, _)| r.is_match(name)) {
                Some((r, to)) => Relabel::To(r.replace(name, to.as_str()).into_owned()),
                None => Relabel::Keep,
            },
            _ => Relabel::Keep,
        }
    }
}

/// Reads a network from a file: `.exp`, or a single `.aut` (one component whose every
/// label fires alone).
pub fn load(path: &Path, options: &Options) -> Result<Network> {
    let text = read(path)?;
    let name = path.display().to_string();
    if path.extension().is_some_and(|e| e == "aut") {
        let lts = aut::parse(&text, &name, &options.aut)?;
        return Ok(single(stem(path), &lts, options.counting));
    }
    let tree = exp::parse(&text, &name)?;
    Builder { text: &text, file: &name, dir: path.parent().unwrap_or(Path::new("")), options }.network(&tree)
}

/// Reads a whole file as text.
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.display().to_string(), message: e.to_string() })
}

fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}

/// A network of one component in which every label fires alone.
pub fn single(name: String, lts: &Lts, counting: Counting) -> Network {
    let component = Component::new(name, lts);
    let groups = (0..component.labels.len() as u32)
        .filter(|&l| component.uses(l))
        .map(|l| Group { parts: vec![(0, l)], label: l })
        .collect();
    Network {
        labels: component.labels.clone(),
        components: vec![component],
        groups,
        counting,
        warnings: vec![],
        monitor: None,
        property: None,
        actions: vec![],
    }
}

struct Builder<'a> {
    text: &'a str,
    file: &'a str,
    dir: &'a Path,
    options: &'a Options,
}

impl Builder<'_> {
    fn fail<T>(&self, at: usize, message: impl Into<String>) -> Result<T> {
        Err(error_at(self.text, self.file, at, message).into())
    }

    fn is_tau(&self, name: &str) -> bool {
        self.options.aut.internal.iter().any(|i| i == name)
    }

    fn network(&self, tree: &Behaviour) -> Result<Network> {
        let mut ops = Vec::new();
        let mut b = tree;
        while let Some((op, body)) = LabelOp::of(b, self.options.exp_regex)? {
            ops.push(op);
            b = body;
        }
        ops.reverse(); // innermost first
        let mut net = match b {
            Behaviour::Par { vectors, operands, at } => self.par(vectors, operands, *at)?,
            Behaviour::File { .. } => {
                let lts = self.component(b)?;
                let Behaviour::File { path, .. } = b else { unreachable!() };
                single(stem(Path::new(path)), &lts, self.options.counting)
            }
            _ => unreachable!("label operations were taken off"),
        };
        self.relabel_groups(&mut net, &ops);
        Ok(net)
    }

    /// A `par` operand: a file under component label operations.
    fn component(&self, b: &Behaviour) -> Result<Lts> {
        if let Some((op, body)) = LabelOp::of(b, self.options.exp_regex)? {
            let lts = self.component(body)?;
            return Ok(lts.relabel(|name| op.apply(name)));
        }
        match b {
            Behaviour::File { path, at } => {
                if !path.ends_with(".aut") {
                    return self.fail(*at, format!("component `{path}`: only .aut files are supported as components"));
                }
                let found = self.resolve(path).ok_or(());
                let Ok(file) = found else {
                    return self.fail(
                        *at,
                        format!(
                            "component file `{path}` not found (looked in `{}` and the current directory)",
                            if self.dir.as_os_str().is_empty() { Path::new(".") } else { self.dir }.display()
                        ),
                    );
                };
                let text = read(&file)?;
                aut::parse(&text, &file.display().to_string(), &self.options.aut)
            }
            Behaviour::Par { at, .. } => {
                self.fail(*at, "a `par` inside a `par`: networks must be flat (one `par` over .aut components)")
            }
            _ => unreachable!("label operations handled above"),
        }
    }

    fn resolve(&self, path: &str) -> Option<PathBuf> {
        [self.dir.join(path), PathBuf::from(path)].into_iter().find(|p| p.is_file())
    }

    fn par(&self, vectors: &[Vector], operands: &[Behaviour], at: usize) -> Result<Network> {
        let n = operands.len();
        let mut components = Vec::with_capacity(n);
        let mut names: FxHashMap<String, usize> = FxHashMap::default();
        for operand in operands {
            let lts = self.component(operand)?;
            let mut name = file_name(operand);
            let seen = names.entry(name.clone()).or_insert(0);
            *seen += 1;
            if *seen > 1 {
                name = format!("{name}#{seen}");
            }
            components.push(Component::new(name, &lts));
        }
        if n > u32::MAX as usize / 2 {
            return self.fail(at, "too many components");
        }
        let mut net = Network {
            components,
            groups: vec![],
            labels: vec!["i".into()],
            counting: self.options.counting,
            warnings: vec![],
            monitor: None,
            property: None,
            actions: vec![],
        };
        let mut label_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut mentioned = vec![FxHashSet::default(); n];
        let mut seen_vectors = FxHashSet::default();
        let gpu = self.options.sync == Sync::FreeUnmentioned;
        for v in vectors {
            if v.elements.len() != n {
                return self.fail(
                    v.at,
                    format!("this vector has {} elements but the `par` has {n} components", v.elements.len()),
                );
            }
            let parts: Vec<(usize, &String)> =
                v.elements.iter().enumerate().filter_map(|(k, e)| e.as_ref().map(|l| (k, l))).collect();
            if parts.is_empty() {
                return self.fail(v.at, "a vector needs at least one label other than `_`");
            }
            if gpu && parts.iter().any(|(_, l)| **l != v.result) {
                return self.fail(
                    v.at,
                    "--sync=free-unmentioned reads GPUexplore networks, whose vectors are `a * ... * a -> a`; \
                     this one is not (use the default EXP semantics)",
                );
            }
            let taus = parts.iter().filter(|(_, l)| self.is_tau(l)).count();
            if !gpu && taus > 0 {
                if parts.len() == 1 {
                    continue; // τ interleaves anyway
                }
                return self.fail(v.at, "τ never synchronises: a vector may name the internal action only alone");
            }
            for &(k, l) in &parts {
                mentioned[k].insert(if self.is_tau(l) { "i".to_string() } else { l.clone() });
            }
            if !seen_vectors.insert((v.elements.clone(), v.result.clone())) {
                net.warnings.push(format!("{}: a duplicate vector, merged", self.place(v.at)));
                continue;
            }
            let mut group = Vec::with_capacity(parts.len());
            let mut fires = true;
            for &(k, l) in &parts {
                let c = &net.components[k];
                let id = if self.is_tau(l) { Some(TAU) } else { c.label_id(l) };
                match id.filter(|&id| c.uses(id)) {
                    Some(id) => group.push((k as u32, id)),
                    None => {
                        net.warnings.push(format!(
                            "{}: component {} ({}) never offers \"{l}\": this vector never fires",
                            self.place(v.at),
                            k,
                            c.name
                        ));
                        fires = false;
                    }
                }
            }
            if fires {
                let label = self.product_label(&mut net, &mut label_ids, &v.result);
                net.groups.push(Group { parts: group, label });
            }
        }
        // Moves of one component alone: τ, unmentioned labels (GPUexplore), free labels.
        for (k, mentioned) in mentioned.iter().enumerate() {
            let c = &net.components[k];
            let mut alone = Vec::new();
            for l in 0..c.labels.len() as u32 {
                if !c.uses(l) {
                    continue;
                }
                let name = &c.labels[l as usize];
                let unmentioned = !mentioned.contains(name);
                let free = l != TAU && self.options.free.as_ref().is_some_and(|r| r.is_match(name));
                if (l == TAU && !gpu) || free || (gpu && unmentioned) {
                    alone.push(l);
                } else if unmentioned && l != TAU {
                    net.warnings.push(format!(
                        "component {k} ({}): label \"{name}\" is in no vector at position {k}, so it never fires (GPUexplore's reading, --sync=free-unmentioned, lets it fire alone)",
                        c.name
                    ));
                }
            }
            for l in alone {
                let name = net.components[k].labels[l as usize].clone();
                let label = if l == TAU { TAU } else { self.product_label(&mut net, &mut label_ids, &name) };
                net.groups.push(Group { parts: vec![(k as u32, l)], label });
            }
        }
        Ok(net)
    }

    fn product_label(&self, net: &mut Network, ids: &mut FxHashMap<String, u32>, name: &str) -> u32 {
        if self.is_tau(name) {
            return TAU;
        }
        *ids.entry(name.to_string()).or_insert_with(|| {
            net.labels.push(name.to_string());
            net.labels.len() as u32 - 1
        })
    }

    /// The network's own `hide`, `cut`, `rename`, innermost first.
    fn relabel_groups(&self, net: &mut Network, ops: &[LabelOp]) {
        if ops.is_empty() {
            return;
        }
        let mut ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut labels = vec!["i".to_string()];
        let mut map = vec![Some(TAU)];
        for name in net.labels.iter().skip(1) {
            // `Some("")` is τ, which is neither hidden, cut nor renamed again.
            let mut current = Some(name.clone());
            for op in ops {
                let Some(n) = current.take().filter(|n| !n.is_empty()) else { break };
                current = match op.apply(&n) {
                    Relabel::Keep => Some(n),
                    Relabel::To(m) if self.is_tau(&m) => Some(String::new()),
                    Relabel::To(m) => Some(m),
                    Relabel::Tau => Some(String::new()),
                    Relabel::Cut => None,
                };
            }
            map.push(current.map(|n| {
                if n.is_empty() {
                    return TAU;
                }
                *ids.entry(n.clone()).or_insert_with(|| {
                    labels.push(n);
                    labels.len() as u32 - 1
                })
            }));
        }
        net.groups.retain_mut(|g| match map[g.label as usize] {
            Some(l) => {
                g.label = l;
                true
            }
            None => false,
        });
        net.labels = labels;
    }

    fn place(&self, at: usize) -> String {
        let d = error_at(self.text, self.file, at, "");
        format!("{}:{}:{}", d.file, d.line, d.column)
    }
}

/// The component name of a `par` operand: its file's stem.
fn file_name(b: &Behaviour) -> String {
    match b {
        Behaviour::File { path, .. } => stem(Path::new(path)),
        Behaviour::Hide { body, .. } | Behaviour::Cut { body, .. } | Behaviour::Rename { body, .. } => file_name(body),
        Behaviour::Par { .. } => "par".into(),
    }
}
