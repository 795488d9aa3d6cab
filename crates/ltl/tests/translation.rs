//! Property-based tests of the LTL translation against a brute-force oracle: the
//! semantics of LTL evaluated directly on lassos (ultimately periodic words `u v^ω`),
//! by least and greatest fixpoints over the lasso's positions; it shares no code with
//! the translation (not the negation normal form, not the simplifications).
//!
//! - Words: on random formulas over 3 propositions and random lasso words, the
//!   automaton of `!φ` accepts exactly the words violating `φ`, and the automaton of
//!   `φ` exactly those satisfying it.
//! - Kripke structures: random labelled graphs written as DVE models, the formula's
//!   automaton attached as a property process, checked by nested DFS (and OWCTY):
//!   every counterexample, read back as a word, violates the formula, and when the
//!   check says the formula holds, no lasso of the structure up to a bound violates
//!   it. Deadlocked states stutter, as in the product.
//!
//! Seeded (`SplitMix64`), so every run checks the same cases; the failing case is
//! printed.

use warpcheck_graph::generate::SplitMix64;
use warpcheck_liveness::{check, Algorithm, Options};
use warpcheck_ltl::buchi::translate;
use warpcheck_ltl::formula::Ltl;
use warpcheck_ltl::formula_automaton;
use warpcheck_ltl::propositions::parse_argument;
use warpcheck_model::Product;

const APS: u32 = 3;

/// A random formula of at most `depth` levels over `APS` propositions.
fn formula(rng: &mut SplitMix64, depth: u32) -> Ltl {
    let leaf = depth == 0 || rng.below(5) == 0;
    if leaf {
        return match rng.below(12) {
            0 => Ltl::True,
            1 => Ltl::False,
            _ => Ltl::Ap(rng.below(APS as u64) as u32),
        };
    }
    let op = rng.below(13);
    let mut sub = || Box::new(formula(rng, depth - 1));
    match op {
        0 => Ltl::Not(sub()),
        1 => Ltl::Next(sub()),
        2 => Ltl::Finally(sub()),
        3 => Ltl::Globally(sub()),
        4 => Ltl::And(sub(), sub()),
        5 => Ltl::Or(sub(), sub()),
        6 => Ltl::Implies(sub(), sub()),
        7 => Ltl::Equiv(sub(), sub()),
        8 | 9 => Ltl::Until(sub(), sub()),
        10 | 11 => Ltl::Release(sub(), sub()),
        _ => Ltl::WeakUntil(sub(), sub()),
    }
}

/// Per position of the lasso `stem cycle^ω`, whether `f` holds there.
fn holds(f: &Ltl, stem: &[u64], cycle: &[u64]) -> Vec<bool> {
    let n = stem.len() + cycle.len();
    let next = |p: usize| if p + 1 < n { p + 1 } else { stem.len() };
    let letter = |p: usize| if p < stem.len() { stem[p] } else { cycle[p - stem.len()] };
    // Least (`start` false) or greatest (`start` true) fixpoint of
    // `v[p] = now[p] || (keep[p] && v[next p])` resp. `now[p] && (keep[p] || v[next p])`.
    let fixpoint = |now: &[bool], keep: &[bool], least: bool| {
        let mut v = vec![!least; n];
        loop {
            let mut changed = false;
            for p in (0..n).rev() {
                let x = if least { now[p] || (keep[p] && v[next(p)]) } else { now[p] && (keep[p] || v[next(p)]) };
                changed |= x != v[p];
                v[p] = x;
            }
            if !changed {
                return v;
            }
        }
    };
    let both = |a: &Ltl, b: &Ltl| (holds(a, stem, cycle), holds(b, stem, cycle));
    let zip =
        |a: Vec<bool>, b: Vec<bool>, op: fn(bool, bool) -> bool| a.into_iter().zip(b).map(|(x, y)| op(x, y)).collect();
    match f {
        Ltl::True => vec![true; n],
        Ltl::False => vec![false; n],
        Ltl::Ap(i) => (0..n).map(|p| letter(p) >> i & 1 == 1).collect(),
        Ltl::Not(a) => holds(a, stem, cycle).into_iter().map(|x| !x).collect(),
        Ltl::And(a, b) => {
            let (a, b) = both(a, b);
            zip(a, b, |x, y| x && y)
        }
        Ltl::Or(a, b) => {
            let (a, b) = both(a, b);
            zip(a, b, |x, y| x || y)
        }
        Ltl::Implies(a, b) => {
            let (a, b) = both(a, b);
            zip(a, b, |x, y| !x || y)
        }
        Ltl::Equiv(a, b) => {
            let (a, b) = both(a, b);
            zip(a, b, |x, y| x == y)
        }
        Ltl::Next(a) => {
            let a = holds(a, stem, cycle);
            (0..n).map(|p| a[next(p)]).collect()
        }
        Ltl::Finally(a) => fixpoint(&holds(a, stem, cycle), &vec![true; n], true),
        Ltl::Globally(a) => fixpoint(&holds(a, stem, cycle), &vec![false; n], false),
        Ltl::Until(a, b) => {
            let (a, b) = both(a, b);
            fixpoint(&b, &a, true)
        }
        Ltl::Release(a, b) => {
            let (a, b) = both(a, b);
            fixpoint(&b, &a, false)
        }
        // a W b: v = b || (a && X v), greatest.
        Ltl::WeakUntil(a, b) => {
            let (a, b) = both(a, b);
            let mut v = vec![true; n];
            loop {
                let mut changed = false;
                for p in (0..n).rev() {
                    let x = b[p] || (a[p] && v[next(p)]);
                    changed |= x != v[p];
                    v[p] = x;
                }
                if !changed {
                    break v;
                }
            }
        }
    }
}

fn satisfies(f: &Ltl, stem: &[u64], cycle: &[u64]) -> bool {
    holds(f, stem, cycle)[0]
}

fn word(rng: &mut SplitMix64, max: u64) -> Vec<u64> {
    (0..rng.below(max)).map(|_| rng.below(1 << APS)).collect()
}

#[test]
fn automata_accept_exactly_the_violating_words() {
    let mut rng = SplitMix64::new(0x1712);
    let (mut cases, mut states, mut largest) = (0, 0, 0);
    for _ in 0..1500 {
        let f = formula(&mut rng, 4);
        let negated = translate(&f, true, APS as usize).unwrap();
        let positive = translate(&f, false, APS as usize).unwrap();
        states += negated.states();
        largest = largest.max(negated.states());
        for _ in 0..12 {
            let stem = word(&mut rng, 4);
            let mut cycle = word(&mut rng, 4);
            if cycle.is_empty() {
                cycle.push(rng.below(1 << APS));
            }
            let sat = satisfies(&f, &stem, &cycle);
            assert_eq!(negated.accepts(&stem, &cycle), !sat, "!({f}) on {stem:?} ({cycle:?})^w: {negated:?}");
            assert_eq!(positive.accepts(&stem, &cycle), sat, "{f} on {stem:?} ({cycle:?})^w: {positive:?}");
            cases += 1;
        }
    }
    eprintln!("{cases} lasso words; automata of the negations: {states} states in all, {largest} at most");
}

/// A random Kripke structure: per state its letter and successors (none: deadlock).
struct Kripke {
    letters: Vec<u64>,
    successors: Vec<Vec<usize>>,
}

fn kripke(rng: &mut SplitMix64) -> Kripke {
    let n = 1 + rng.below(4) as usize;
    let letters = (0..n).map(|_| rng.below(1 << APS)).collect();
    let successors = (0..n)
        .map(|_| {
            let mut s: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(n as u64) as usize).collect();
            s.sort();
            s.dedup();
            s
        })
        .collect();
    Kripke { letters, successors }
}

impl Kripke {
    /// The structure as a DVE model over `byte s`, state 0 initial.
    fn dve(&self) -> String {
        let transitions: Vec<String> = (0..self.letters.len())
            .flat_map(|u| {
                self.successors[u].iter().map(move |v| format!("k -> k {{ guard s == {u}; effect s = {v}; }}"))
            })
            .collect();
        let trans = if transitions.is_empty() { String::new() } else { format!("trans {};", transitions.join(", ")) };
        format!("byte s; process K {{ state k; init k; {trans} }} system async;")
    }

    /// `--ap` definitions of `p0`, `p1`, ...: the states whose letter holds it.
    fn propositions(&self) -> Vec<String> {
        (0..APS)
            .map(|i| {
                let states: Vec<String> = (0..self.letters.len())
                    .filter(|&u| self.letters[u] >> i & 1 == 1)
                    .map(|u| format!("s == {u}"))
                    .collect();
                let expr = if states.is_empty() { "s > 100".to_string() } else { states.join(" || ") };
                format!("p{i}={expr}")
            })
            .collect()
    }

    /// Successors with a self-loop on each deadlock (stuttering).
    fn next(&self, u: usize) -> Vec<usize> {
        if self.successors[u].is_empty() {
            vec![u]
        } else {
            self.successors[u].clone()
        }
    }

    /// Some lasso from state 0 with at most `max` positions whose word violates `f`.
    fn violating_lasso(&self, f: &Ltl, max: usize) -> Option<(Vec<usize>, usize)> {
        let mut paths = vec![vec![0usize]];
        while let Some(path) = paths.pop() {
            let last = *path.last().unwrap();
            let letters: Vec<u64> = path.iter().map(|&u| self.letters[u]).collect();
            for v in self.next(last) {
                // Close the lasso at each earlier occurrence of `v`.
                for start in (0..path.len()).filter(|&i| path[i] == v) {
                    if !satisfies(f, &letters[..start], &letters[start..]) {
                        return Some((path.clone(), start));
                    }
                }
                if path.len() < max {
                    let mut longer = path.clone();
                    longer.push(v);
                    paths.push(longer);
                }
            }
        }
        None
    }
}

/// Formula text with propositions named `p0`, `p1`, ... (the `Display` of [`Ltl`]).
fn text(f: &Ltl) -> String {
    f.to_string()
}

#[test]
fn model_checking_random_kripke_structures_agrees_with_lassos() {
    let mut rng = SplitMix64::new(0xbeef);
    let (mut holds_count, mut violated_count) = (0, 0);
    for case in 0..600 {
        let k = kripke(&mut rng);
        let f = formula(&mut rng, 3);
        let source = k.dve();
        let mut dve = warpcheck_dve::load(&source).unwrap_or_else(|d| panic!("{}", d.render("kripke", &source)));
        let definitions: Vec<_> = k.propositions().iter().map(|a| parse_argument(a).unwrap()).collect();
        let ready = formula_automaton(&text(&f), &definitions, |e| dve.add_predicate(e))
            .unwrap_or_else(|e| panic!("case {case}: {f}: {e}"));
        let product = Product::new(&dve.model, ready.automaton);
        let algorithm = [Algorithm::Owcty, Algorithm::Ndfs, Algorithm::Cndfs][case % 3];
        let outcome = check(&product, &Options { algorithm, ..Options::default() }).unwrap();
        let context = || format!("case {case}: {f} on {source} ({})", k.propositions().join(", "));
        match &outcome.lasso {
            Some(lasso) => {
                violated_count += 1;
                let slot = dve.model.layout.slot(dve.model.variables[0].first);
                let s = |state: &[u32]| slot.get(state) as usize;
                let mut states = vec![s(&lasso.stem.initial)];
                states.extend(lasso.stem.steps.iter().map(|t| s(&t.state)));
                states.extend(lasso.cycle.iter().map(|t| s(&t.state)));
                // Letters are read at the state a step leaves: positions 0..len.
                let letters: Vec<u64> = states[..states.len() - 1].iter().map(|&u| k.letters[u]).collect();
                let start = lasso.stem.len();
                assert!(
                    !satisfies(&f, &letters[..start], &letters[start..]),
                    "{}: the counterexample {states:?} (cycle from {start}) satisfies the formula",
                    context()
                );
            }
            None => {
                holds_count += 1;
                if let Some((path, start)) = k.violating_lasso(&f, 6) {
                    panic!("{}: holds, but the lasso {path:?} (cycle from {start}) violates it", context());
                }
            }
        }
    }
    eprintln!("600 random structures and formulas: {holds_count} hold, {violated_count} violated");
    assert!(holds_count > 100 && violated_count > 100);
}
