//! Büchi automata with guarded edges, and the translation of an LTL formula into one.
//!
//! [`Buchi`] is the shape of BEEM's property processes: states, one initial state
//! (state 0), accepting states, and edges whose guard ([`Label`], a disjunction of
//! [`Cube`]s of literals) reads the letter of the position the run leaves. A run
//! `q0 -σ0-> q1 -σ1-> q2 ...` accepts the word `σ0 σ1 ...` when it visits accepting
//! states infinitely often.
//!
//! [`translate`]: the formula (or its negation) to negation normal form with the
//! simplifications of [`crate::nnf`]; the GPVW tableau ([`crate::tableau`]), a
//! generalized Büchi automaton labelled on states; then degeneralisation, which also
//! moves the labels to the edges: a fresh initial state, and per tableau node `n` and
//! counter `j` (the acceptance sets `0..j` were seen since the last accepting visit,
//! `n` included) a state `(n, j)`; the edge `(m, i) -> (n, j)` carries `n`'s label,
//! and `j` starts from `i` (from 0 when `i = k`) and skips every set that `n` belongs
//! to, reaching `k` (accepting) when all `k` sets were seen. Finally the reductions: states that are unreachable or from which no
//! accepting cycle is reachable are removed, bisimilar states merged (same acceptance,
//! same guards to the same classes), a state on no cycle merged into a state with the
//! same edges (its acceptance does not matter: a run passes it once), and parallel
//! edges joined into one guard (absorbing subsumed cubes, and `p && c || !p && c` to
//! `c`); then the reduction by direct simulation ([`crate::simulation`]) and the
//! above again. Since the acceptance of states on no cycle does not matter, the
//! reductions run keeping it, clearing it and setting it, and the smallest result
//! wins.
//!
//! Size: the tableau has at most `2^O(|φ|)` nodes and degeneralisation multiplies by
//! `k + 1` (`k` until subformulas) at most; the reductions usually bring BEEM's
//! formulas down to 2-5 states (`G (p -> F q)` negated: 2 states, 3 edges).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use crate::formula::Ltl;
use crate::nnf::Nnf;
use crate::tableau::{tableau, Generalized};

/// A conjunction of literals over atomic propositions `0..64`: `pos` and `neg` are the
/// propositions that must hold and must not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Cube {
    pub pos: u64,
    pub neg: u64,
}

impl Cube {
    pub const TRUE: Cube = Cube { pos: 0, neg: 0 };

    /// This cube and the literal `ap` (negated when `!positive`).
    pub fn with(self, ap: u32, positive: bool) -> Cube {
        let bit = 1u64 << ap;
        if positive {
            Cube { pos: self.pos | bit, ..self }
        } else {
            Cube { neg: self.neg | bit, ..self }
        }
    }

    /// Whether the letter `letter` (bit `i`: proposition `i` holds) satisfies the cube.
    pub fn holds(self, letter: u64) -> bool {
        letter & self.pos == self.pos && letter & self.neg == 0
    }

    /// Whether every letter satisfying `other` satisfies `self`.
    fn implied_by(self, other: Cube) -> bool {
        self.pos & !other.pos == 0 && self.neg & !other.neg == 0
    }
}

/// A disjunction of cubes (none: false), normalised: no cube implies another, and no
/// two differ in the sign of one literal only.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Label(pub Vec<Cube>);

impl Label {
    /// The normalised disjunction of `cubes`.
    pub fn new(cubes: impl IntoIterator<Item = Cube>) -> Label {
        let mut set: BTreeSet<Cube> = cubes.into_iter().collect();
        loop {
            let cubes: Vec<Cube> = set.iter().copied().collect();
            let mut changed = false;
            'pairs: for (i, &a) in cubes.iter().enumerate() {
                for &b in &cubes[i + 1..] {
                    if a.implied_by(b) || b.implied_by(a) {
                        set.remove(if a.implied_by(b) { &b } else { &a });
                        changed = true;
                        break 'pairs;
                    }
                    let bit = a.pos ^ b.pos;
                    if a.pos | a.neg == b.pos | b.neg && bit.count_ones() == 1 && bit == a.neg ^ b.neg {
                        set.remove(&a);
                        set.remove(&b);
                        set.insert(Cube { pos: a.pos & !bit, neg: a.neg & !bit });
                        changed = true;
                        break 'pairs;
                    }
                }
            }
            if !changed {
                return Label(set.into_iter().collect());
            }
        }
    }

    /// Whether the letter satisfies some cube.
    pub fn holds(&self, letter: u64) -> bool {
        self.0.iter().any(|c| c.holds(letter))
    }

    /// Whether the label is `true` (holds on every letter).
    pub fn is_true(&self) -> bool {
        self.0 == [Cube::TRUE]
    }
}

/// An edge of a Büchi automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub label: Label,
}

/// A Büchi automaton: state 0 is initial; edges sorted by source, then target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buchi {
    pub accepting: Vec<bool>,
    pub edges: Vec<Edge>,
}

/// Why a formula has no automaton.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error("the formula has {0} atomic propositions; at most 64 are supported")]
    TooManyPropositions(usize),
}

impl Buchi {
    pub fn states(&self) -> usize {
        self.accepting.len()
    }

    /// This automaton over the labels of a model, for [`warpcheck_model::Product`]:
    /// proposition `i` is label `labels[i]`. Literals keep proposition order, so
    /// guards evaluate as the property process of `crate::property` does.
    pub fn over_labels(&self, name: &str, labels: &[warpcheck_model::LabelId]) -> warpcheck_model::Automaton {
        let cube = |c: &Cube| -> Vec<(warpcheck_model::LabelId, bool)> {
            (0..64u32)
                .filter(|ap| (c.pos | c.neg) & (1u64 << ap) != 0)
                .map(|ap| (labels[ap as usize], c.pos & (1u64 << ap) != 0))
                .collect()
        };
        let edges = self
            .edges
            .iter()
            .map(|e| warpcheck_model::AutomatonEdge {
                from: e.from,
                to: e.to,
                guard: e.label.0.iter().map(cube).collect(),
            })
            .collect();
        warpcheck_model::Automaton::new(name, self.accepting.clone(), edges)
    }

    /// Whether the automaton accepts the lasso word `stem cycle^ω` (letters as bit
    /// sets): whether the product of the lasso with the automaton has an accepting
    /// cycle.
    pub fn accepts(&self, stem: &[u64], cycle: &[u64]) -> bool {
        assert!(!cycle.is_empty(), "a lasso needs a cycle");
        let positions = stem.len() + cycle.len();
        let letter = |p: usize| if p < stem.len() { stem[p] } else { cycle[p - stem.len()] };
        let after = |p: usize| if p + 1 < positions { p + 1 } else { stem.len() };
        let states = self.states();
        // Vertex p * states + q is (position p, state q); edges read the letter at p.
        let mut edges = Vec::new();
        for p in 0..positions {
            for e in self.edges.iter().filter(|e| e.label.holds(letter(p))) {
                edges.push(((p * states) as u32 + e.from, (after(p) * states) as u32 + e.to));
            }
        }
        // An accepting cycle: an accepting vertex reachable from the start that reaches
        // itself again (quadratic, for the small products of tests).
        let n = positions * states;
        let mut successors = vec![Vec::new(); n];
        for &(a, b) in &edges {
            successors[a as usize].push(b as usize);
        }
        let next = |v: usize, out: &mut Vec<usize>| out.extend(&successors[v]);
        let reachable = search(n, [0], next);
        (0..n)
            .filter(|&v| reachable[v] && self.accepting[v % states])
            .any(|v| search(n, successors[v].iter().copied(), next)[v])
    }
}

/// The vertices of `0..n` reachable from `from` (included), by breadth-first search.
fn search(n: usize, from: impl IntoIterator<Item = usize>, mut next: impl FnMut(usize, &mut Vec<usize>)) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for v in from {
        if !seen[v] {
            seen[v] = true;
            queue.push_back(v);
        }
    }
    let mut out = Vec::new();
    while let Some(v) = queue.pop_front() {
        out.clear();
        next(v, &mut out);
        for &w in &out {
            if !seen[w] {
                seen[w] = true;
                queue.push_back(w);
            }
        }
    }
    seen
}

/// A Büchi automaton accepting exactly the words that satisfy `formula` (`negate`:
/// that violate it), over its atomic propositions `0..aps`.
pub fn translate(formula: &Ltl, negate: bool, aps: usize) -> Result<Buchi, TranslateError> {
    if aps > 64 {
        return Err(TranslateError::TooManyPropositions(aps));
    }
    let mut arena = Nnf::new();
    let root = arena.from_ltl(formula, negate);
    let generalized = tableau(&arena, root);
    let b = degeneralize(&generalized);
    // The acceptance of a state on no cycle does not matter: as it is, all cleared or all
    // set, it lets different states merge. All three are tried; the smallest wins.
    let pipeline = |acyclic| reduce(crate::simulation::reduce(reduce(b.clone(), acyclic)), acyclic);
    let size = |b: &Buchi| (b.states(), b.edges.len());
    Ok([None, Some(false), Some(true)].into_iter().map(pipeline).min_by_key(size).expect("three candidates"))
}

/// Degeneralisation with the labels moved to the edges (see the module documentation).
pub fn degeneralize(g: &Generalized) -> Buchi {
    let k = g.acceptance.len();
    let mut ids: HashMap<(usize, usize), u32> = HashMap::new();
    let mut accepting = vec![false];
    let mut edges = Vec::new();
    let mut queue = VecDeque::new();
    let mut state = |node: usize, counter: usize, accepting: &mut Vec<bool>, queue: &mut VecDeque<(usize, usize)>| {
        *ids.entry((node, counter)).or_insert_with(|| {
            accepting.push(counter == k);
            queue.push_back((node, counter));
            accepting.len() as u32 - 1
        })
    };
    // The counter after entering `n` with `counter`: a completed round starts again,
    // then every set from there on that `n` belongs to is skipped.
    let advance = |counter: usize, n: usize| {
        let mut next = if counter == k { 0 } else { counter };
        while next < k && g.acceptance[next][n] {
            next += 1;
        }
        next
    };
    for &n in &g.initial {
        let to = state(n, advance(0, n), &mut accepting, &mut queue);
        edges.push(Edge { from: 0, to, label: Label(vec![g.labels[n]]) });
    }
    while let Some((m, counter)) = queue.pop_front() {
        let from = state(m, counter, &mut accepting, &mut queue);
        for &n in &g.successors[m] {
            let to = state(n, advance(counter, n), &mut accepting, &mut queue);
            edges.push(Edge { from, to, label: Label(vec![g.labels[n]]) });
        }
    }
    normalize(Buchi { accepting, edges })
}

/// Joins parallel edges into one label and sorts the edges.
pub(crate) fn normalize(b: Buchi) -> Buchi {
    let mut joined: BTreeMap<(u32, u32), Vec<Cube>> = BTreeMap::new();
    for e in b.edges {
        joined.entry((e.from, e.to)).or_default().extend(e.label.0);
    }
    let edges = joined
        .into_iter()
        .map(|((from, to), cubes)| Edge { from, to, label: Label::new(cubes) })
        .filter(|e| !e.label.0.is_empty())
        .collect();
    Buchi { accepting: b.accepting, edges }
}

/// Per state, the range of its edges in `edges` (sorted by source).
fn edge_ranges(b: &Buchi) -> Vec<std::ops::Range<usize>> {
    let mut ranges = vec![0..0; b.states()];
    let mut start = 0;
    for (i, e) in b.edges.iter().enumerate() {
        if i + 1 == b.edges.len() || b.edges[i + 1].from != e.from {
            ranges[e.from as usize] = start..i + 1;
            start = i + 1;
        }
    }
    ranges
}

/// Removes useless states and merges bisimilar ones (see the module documentation).
pub fn reduce(b: Buchi, acyclic: Option<bool>) -> Buchi {
    let b = prune(b, acyclic);
    let n = b.states();
    let ranges = edge_ranges(&b);
    // Partition refinement: classes by acceptance, then by the guards to each class.
    let mut class: Vec<usize> = b.accepting.iter().map(|&a| a as usize).collect();
    let mut classes = class.iter().collect::<BTreeSet<_>>().len();
    loop {
        let mut signatures: HashMap<(usize, Vec<(usize, Label)>), usize> = HashMap::new();
        let mut refined = vec![0; n];
        for s in 0..n {
            let mut out: BTreeMap<usize, Vec<Cube>> = BTreeMap::new();
            for e in &b.edges[ranges[s].clone()] {
                out.entry(class[e.to as usize]).or_default().extend(e.label.0.iter().copied());
            }
            let sig: Vec<(usize, Label)> = out.into_iter().map(|(c, cubes)| (c, Label::new(cubes))).collect();
            let fresh = signatures.len();
            refined[s] = *signatures.entry((class[s], sig)).or_insert(fresh);
        }
        class = refined;
        if signatures.len() == classes {
            break;
        }
        classes = signatures.len();
    }
    // Quotient, numbered in order of first member, so the initial state's class is 0.
    let mut number: HashMap<usize, u32> = HashMap::new();
    let mut accepting = Vec::new();
    for (&c, &a) in class.iter().zip(&b.accepting) {
        number.entry(c).or_insert_with(|| {
            accepting.push(a);
            accepting.len() as u32 - 1
        });
    }
    let edges = b
        .edges
        .iter()
        .map(|e| Edge {
            from: number[&class[e.from as usize]],
            to: number[&class[e.to as usize]],
            label: e.label.clone(),
        })
        .collect();
    merge_twins(normalize(Buchi { accepting, edges }))
}

/// Whether each state lies on a cycle (a component of two states or more, or a
/// self-loop), by Tarjan's algorithm.
fn cyclic(b: &Buchi) -> Vec<bool> {
    let n = b.states();
    let pairs: Vec<(u32, u32)> = b.edges.iter().map(|e| (e.from, e.to)).collect();
    let graph = warpcheck_graph::Csr::from_edges(n as u64, &pairs).expect("a small automaton");
    let components = warpcheck_scc::tarjan::tarjan(&graph);
    let mut size = vec![0usize; n];
    for &c in &components.of {
        size[c as usize] += 1;
    }
    let mut cyclic: Vec<bool> = (0..n).map(|v| size[components.of[v] as usize] > 1).collect();
    for e in b.edges.iter().filter(|e| e.from == e.to) {
        cyclic[e.from as usize] = true;
    }
    cyclic
}

/// A run passes a state on no cycle at most once, so its acceptance does not matter:
/// when another state has the same edges, the state merges into it (the edges entering
/// it enter the twin; the twin becomes initial if the state was). No cycle appears: one
/// through the twin and a former predecessor would have been one through the state.
fn merge_twins(mut b: Buchi) -> Buchi {
    loop {
        let n = b.states();
        let cyclic = cyclic(&b);
        let ranges = edge_ranges(&b);
        let out = |s: usize| b.edges[ranges[s].clone()].iter().map(|e| (e.to, &e.label)).collect::<Vec<_>>();
        let twins =
            (0..n).filter(|&p| !cyclic[p]).find_map(|p| (0..n).find(|&q| q != p && out(q) == out(p)).map(|q| (p, q)));
        let Some((p, q)) = twins else { return b };
        // The surviving states in their new order: the initial one first.
        let mut order: Vec<usize> = (0..n).filter(|&s| s != p).collect();
        if p == 0 {
            order.retain(|&s| s != q);
            order.insert(0, q);
        }
        let mut number = vec![0u32; n];
        for (i, &s) in order.iter().enumerate() {
            number[s] = i as u32;
        }
        number[p] = number[q];
        let accepting = order.iter().map(|&s| b.accepting[s]).collect();
        let edges = b
            .edges
            .iter()
            .filter(|e| e.from as usize != p)
            .map(|e| Edge { from: number[e.from as usize], to: number[e.to as usize], label: e.label.clone() })
            .collect();
        b = normalize(Buchi { accepting, edges });
    }
}

/// Keeps the states reachable from state 0 from which an accepting cycle is reachable
/// (state 0 always stays, as the initial state); with `acyclic`, gives the states on no
/// cycle that acceptance.
fn prune(b: Buchi, acyclic: Option<bool>) -> Buchi {
    let n = b.states();
    let mut forward = vec![Vec::new(); n];
    let mut backward = vec![Vec::new(); n];
    for e in &b.edges {
        forward[e.from as usize].push(e.to as usize);
        backward[e.to as usize].push(e.from as usize);
    }
    let reachable = search(n, [0], |v, out| out.extend(&forward[v]));
    let cyclic = cyclic(&b);
    let on_cycle = (0..n).filter(|&v| reachable[v] && b.accepting[v] && cyclic[v]);
    let productive = search(n, on_cycle, |v, out| out.extend(&backward[v]));
    let keep: Vec<bool> = (0..n).map(|v| v == 0 || (reachable[v] && productive[v])).collect();
    let mut number = vec![u32::MAX; n];
    let mut accepting = Vec::new();
    for v in (0..n).filter(|&v| keep[v]) {
        number[v] = accepting.len() as u32;
        // A run passes a state on no cycle at most once: its acceptance does not matter.
        accepting.push(match acyclic {
            Some(a) if !cyclic[v] => a,
            _ => b.accepting[v] && productive[v],
        });
    }
    let edges = b
        .edges
        .into_iter()
        .filter(|e| keep[e.from as usize] && keep[e.to as usize] && productive[e.to as usize])
        .map(|e| Edge { from: number[e.from as usize], to: number[e.to as usize], label: e.label })
        .collect();
    Buchi { accepting, edges }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::parse;

    fn automaton(text: &str) -> Buchi {
        let f = parse(text).unwrap();
        translate(&f.ltl, true, f.atoms.len()).unwrap()
    }

    #[test]
    fn labels_are_normalised() {
        let p = Cube::TRUE.with(0, true);
        let np = Cube::TRUE.with(0, false);
        let pq = p.with(1, true);
        assert_eq!(Label::new([p, pq]), Label(vec![p]));
        assert_eq!(Label::new([p, np]), Label(vec![Cube::TRUE]));
        assert_eq!(Label::new([pq, np.with(1, true)]), Label(vec![Cube::TRUE.with(1, true)]));
        assert_eq!(Label::new([]), Label(vec![]));
    }

    #[test]
    fn small_automata_for_beem_formulas() {
        // !G (p -> F q) = F (p && G !q): wait, then p && !q, then !q forever.
        let b = automaton("G (p -> F q)");
        assert_eq!((b.states(), b.edges.len()), (2, 3), "{b:?}");
        assert_eq!(b.accepting, [false, true]);
        // !G F p = F G !p.
        let b = automaton("GF p");
        assert_eq!((b.states(), b.edges.len()), (2, 3), "{b:?}");
        // A valid formula: the negation has no accepting run.
        let b = automaton("p || !p");
        assert_eq!((b.states(), b.edges.len()), (1, 0));
        let b = automaton("G p -> F p");
        assert_eq!((b.states(), b.edges.len()), (1, 0), "{b:?}");
    }

    #[test]
    fn lasso_words() {
        let (p, none) = (1u64, 0u64);
        let b = automaton("GF p");
        assert!(b.accepts(&[p, p], &[none]));
        assert!(!b.accepts(&[none], &[none, p]));
        let b = automaton("p U q");
        let q = 2u64;
        assert!(!b.accepts(&[p, p, q], &[none]));
        assert!(b.accepts(&[p, none, q], &[none]));
        assert!(b.accepts(&[], &[p]));
    }
}
