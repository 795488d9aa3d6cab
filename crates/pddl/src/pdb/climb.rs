//! Hill climbing over pattern collections (iPDB: Haslum, Botea, Helmert, Bonet and
//! Koenig, "Domain-independent construction of pattern database heuristics for
//! cost-optimal planning", AAAI 2007), from a pattern per variable of the goal.
//!
//! Each step extends every pattern by one variable its actions depend on (one that a
//! condition of an action changing the pattern reads, or that such an action changes
//! too), builds the tables of those extensions that fit, and keeps the one that raises
//! the canonical heuristic on the most states of a sample: the ends of random walks
//! from the initial state, their lengths binomial around twice the number of steps the
//! collection estimates for a plan. The extension joins the collection (or, when the
//! collection is full, replaces the pattern it extends, counting the states where that
//! lowers the value against it). The climb stops when no extension raises the value
//! on [`MIN_IMPROVEMENT`] of the [`SAMPLES`] states, or when the tables tried have
//! cost [`CLIMB_WORK`] operator checks or hold [`CLIMB_ENTRIES`] entries: a bound on
//! work, not on time, and a fixed seed, so that a task always gets the same collection.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::project::Context;
use super::table::distances;
use super::{additive_sets, canonical, disjoint, index, touched_by, Pattern, DEAD, MAX_PATTERNS};
use crate::invariant::Variable;
use crate::search::Successors;
use crate::task::{State, Task};

/// States sampled at each step, and how many of them an extension must raise.
const SAMPLES: usize = 1000;
const MIN_IMPROVEMENT: usize = 10;
/// The most entries of an extension's table, and of all the collection's tables.
const CANDIDATE_SIZE: usize = 1 << 20;
const COLLECTION_SIZE: usize = 1 << 24;
/// The most operator checks (abstract states times abstract operators) of one
/// extension's table, and of all tables the climb builds.
const CANDIDATE_WORK: u64 = 20_000_000;
const CLIMB_WORK: u64 = 400_000_000;
/// The most entries of the tables the climb keeps while it runs (the extensions
/// tried, for later steps).
const CLIMB_ENTRIES: usize = 1 << 26;

/// An extension tried: its variables, its table (`None` when it does not fit), and
/// the actions that change it.
struct Extension {
    vars: Vec<Variable>,
    table: Option<Vec<u32>>,
    touched: Vec<u32>,
}

/// The collection after climbing from `patterns` (whose tables are built).
pub(super) fn climb(ctx: &Context, mut patterns: Vec<Pattern>) -> Vec<Pattern> {
    if patterns.is_empty() || ctx.task.goal.holds(&ctx.task.init) {
        return patterns;
    }
    let task = ctx.task;
    let successors = Successors::new(task);
    let mut walker = Walker { task, successors: &successors, tests: 0, lists: Vec::new(), applicable: Vec::new() };
    let mut rng = fastrand::Rng::with_seed(0x5eed_1b0b);
    let mut touched: Vec<Vec<u32>> = patterns.iter().map(|p| touched_by(ctx.touching, &p.vars)).collect();
    let mut tried: FxHashMap<Vec<u32>, Extension> = FxHashMap::default();
    let (mut work, mut entries) = (0u64, 0usize);
    loop {
        let refs: Vec<&[u32]> = touched.iter().map(Vec::as_slice).collect();
        let sets = additive_sets(&refs);
        let value = |s: &[u32]| canonical(&patterns.iter().map(|p| p.value(s)).collect::<Vec<_>>(), &sets);
        let dead = |s: &[u32]| patterns.iter().any(|p| p.value(s) == DEAD);
        let Some(samples) = walker.sample(&value, &dead, &mut rng) else { break };
        let sampled = Sampled::new(&patterns, &sets, &samples);
        let mut without: Vec<Option<Vec<u64>>> = vec![None; patterns.len()];
        // The extensions of every pattern, each set of facts once, the first pattern
        // extended to it kept (the one it replaces when the collection is full).
        let size: usize = patterns.iter().map(|p| p.table.len()).sum();
        let mut offers: Vec<(usize, Vec<u32>)> = Vec::new();
        for (j, p) in patterns.iter().enumerate() {
            for key in extensions(ctx, &p.vars, &touched[j]) {
                if !offers.iter().any(|(_, k)| *k == key) {
                    offers.push((j, key));
                }
            }
        }
        // Build the tables not tried before, in order, within the budget.
        let mut new: Vec<(Vec<u32>, Vec<Variable>, Option<u64>)> = Vec::new();
        for (_, key) in &offers {
            if tried.contains_key(key) || new.iter().any(|(k, ..)| k == key) {
                continue;
            }
            let vars = ctx.group(key);
            let cost = fits(ctx, &vars);
            let (charge, entries_of) = cost.map_or((0, 0), |c| (c, radix_product(&vars)));
            if work + charge > CLIMB_WORK || entries + entries_of > CLIMB_ENTRIES {
                break;
            }
            (work, entries) = (work + charge, entries + entries_of);
            new.push((key.clone(), vars, cost));
        }
        let exhausted = new.len() < offers.iter().filter(|(_, k)| !tried.contains_key(k)).count();
        let built: Vec<Extension> = new
            .par_iter()
            .map(|(_, vars, cost)| {
                let table = cost.map(|_| {
                    let ops = ctx.project(vars).expect("an extension that fits projects");
                    distances(task, vars, &ops)
                });
                Extension { touched: touched_by(ctx.touching, vars), vars: vars.clone(), table }
            })
            .collect();
        for ((key, ..), ext) in new.into_iter().zip(built) {
            tried.insert(key, ext);
        }
        // The best extension that fits beside the collection.
        let mut best: Option<(usize, usize, &Vec<u32>)> = None;
        for (j, key) in &offers {
            let Some(ext) = tried.get(key) else { continue };
            let Some(table) = &ext.table else { continue };
            let full = patterns.len() == MAX_PATTERNS;
            let room = size - if full { patterns[*j].table.len() } else { 0 };
            if room + table.len() > COLLECTION_SIZE {
                continue;
            }
            let replaced = full.then(|| (*j, &**without[*j].get_or_insert_with(|| sampled.without(*j, &sets))));
            let score = improvement(&touched, &samples, (&sampled, &sets), ext, table, replaced);
            if best.is_none_or(|(s, ..)| score > s) {
                best = Some((score, *j, key));
            }
        }
        let Some((score, j, key)) = best else { break };
        if score < MIN_IMPROVEMENT {
            break;
        }
        let ext = tried.remove(key).expect("the best extension was tried");
        entries -= ext.table.as_ref().map_or(0, Vec::len);
        let pattern = Pattern { vars: ext.vars, table: ext.table.expect("the best extension has a table") };
        if patterns.len() == MAX_PATTERNS {
            (patterns[j], touched[j]) = (pattern, ext.touched);
        } else {
            patterns.push(pattern);
            touched.push(ext.touched);
        }
        if exhausted {
            break;
        }
    }
    patterns
}

/// The facts of each extension of the pattern `vars` (changed by the actions `touched`)
/// by one variable it depends on (sorted), in the order of the variables.
fn extensions(ctx: &Context, vars: &[Variable], touched: &[u32]) -> Vec<Vec<u32>> {
    let facts: Vec<u32> = vars.iter().flat_map(|v| v.facts.iter().copied()).collect();
    let mut relevant = vec![false; ctx.vars.len()];
    let mut mark = |f: u32| relevant[ctx.var_of[f as usize] as usize] = true;
    for &a in touched {
        let a = &ctx.task.actions[a as usize];
        let conditions = std::iter::once(&a.precondition).chain(a.conditional.iter().map(|c| &c.condition));
        for c in conditions {
            c.positive.iter().chain(&c.negative).for_each(|&f| mark(f));
        }
        let conditional = a.conditional.iter().flat_map(|c| c.add.iter().chain(&c.delete));
        a.add.iter().chain(&a.delete).chain(conditional).for_each(|&f| mark(f));
    }
    let mut out = Vec::new();
    for (v, var) in ctx.vars.iter().enumerate().filter(|&(v, _)| relevant[v]) {
        // A variable no action changes adds nothing; one wholly in the pattern neither.
        let changes = var.facts.iter().any(|&f| !ctx.touching[f as usize].is_empty());
        if !changes || var.facts.iter().all(|f| facts.contains(f)) {
            continue;
        }
        let mut key: Vec<u32> = facts.iter().chain(&ctx.vars[v].facts).copied().collect();
        key.sort_unstable();
        key.dedup();
        out.push(key);
    }
    out
}

/// The work of the table of `vars` (its entries times its operators), when it is
/// within the bounds of an extension.
fn fits(ctx: &Context, vars: &[Variable]) -> Option<u64> {
    let size = radix_product(vars);
    if size > CANDIDATE_SIZE {
        return None;
    }
    let ops = ctx.project(vars)?;
    let work = (ops.len() as u64).max(1).saturating_mul(size as u64);
    (work <= CANDIDATE_WORK).then_some(work)
}

fn radix_product(vars: &[Variable]) -> usize {
    vars.iter().fold(1usize, |n, v| n.saturating_mul(v.radix()))
}

/// The collection's values on the sample: each pattern's, each additive set's sum,
/// and the largest of those (the canonical heuristic's value).
struct Sampled {
    values: Vec<Vec<u32>>,
    sums: Vec<Vec<u64>>,
    best: Vec<u64>,
}

impl Sampled {
    fn new(patterns: &[Pattern], sets: &[u32], samples: &[State]) -> Sampled {
        let values: Vec<Vec<u32>> = samples.iter().map(|s| patterns.iter().map(|p| p.value(s)).collect()).collect();
        let sums: Vec<Vec<u64>> = values.iter().map(|v| sets.iter().map(|&m| masked_sum(v, m)).collect()).collect();
        let best = sums.iter().map(|s| s.iter().copied().max().unwrap_or(0)).collect();
        Sampled { values, sums, best }
    }

    /// Each sample's value without pattern `j`.
    fn without(&self, j: usize, sets: &[u32]) -> Vec<u64> {
        let less = |(sums, values): (&Vec<u64>, &Vec<u32>)| {
            let each = sets.iter().zip(sums).map(|(&m, &s)| s - if m >> j & 1 == 1 { u64::from(values[j]) } else { 0 });
            each.max().unwrap_or(0)
        };
        self.sums.iter().zip(&self.values).map(less).collect()
    }
}

/// The sum of the values of the patterns in `mask` (none [`DEAD`]).
fn masked_sum(values: &[u32], mask: u32) -> u64 {
    let mut m = mask;
    let mut sum = 0;
    while m != 0 {
        sum += u64::from(values[m.trailing_zeros() as usize]);
        m &= m - 1;
    }
    sum
}

/// States where the collection with `ext` has a higher value than without, less those
/// where it has a lower one: `ext` added, or in place of pattern `replaced` (with the
/// values of the collection without that pattern).
fn improvement(
    touched: &[Vec<u32>],
    samples: &[State],
    (sampled, sets): (&Sampled, &[u32]),
    ext: &Extension,
    table: &[u32],
    replaced: Option<(usize, &[u64])>,
) -> usize {
    // A set with the extension is it and part of a set without it (of the patterns
    // additive with it, the one replaced not among them), so the value with it is the
    // larger of its value plus the most such a part adds and the value without.
    let additive = touched.iter().enumerate().filter(|&(i, _)| replaced.is_none_or(|(j, _)| i != j));
    let with: u32 = additive.filter(|(_, t)| disjoint(t, &ext.touched)).fold(0, |m, (i, _)| m | 1 << i);
    let (mut up, mut down) = (0usize, 0usize);
    for (i, s) in samples.iter().enumerate() {
        let (before, values) = (sampled.best[i], &sampled.values[i]);
        let without = replaced.map_or(before, |(_, w)| w[i]);
        let t = match table[index(&ext.vars, s)] {
            DEAD => u64::MAX,
            t => u64::from(t),
        };
        // Cheap bounds first: the extension alone, and with every pattern additive to it.
        let after = if t > before || t.saturating_add(masked_sum(values, with)) <= without {
            t.max(without)
        } else {
            let most = sets.iter().map(|&m| masked_sum(values, m & with)).max().unwrap_or(0);
            (t + most).max(without)
        };
        up += usize::from(after > before);
        down += usize::from(after < before);
    }
    up.saturating_sub(down)
}

/// Random walks over the task's states, each step a uniformly random applicable action:
/// drawn among the actions that [`Successors`] tries in the state until one applies
/// (each applicable action is one of those, once), so that a step tests a few
/// preconditions instead of all (scanalyzer p30: 207,360 actions); after [`TRIES`]
/// misses, all of them. The tests count against [`CLIMB_TESTS`].
struct Walker<'a> {
    task: &'a Task,
    successors: &'a Successors,
    /// Precondition tests so far.
    tests: u64,
    /// The lists tried in a state (a true fact's, or `u32::MAX` for the actions without
    /// positive precondition), each with the end of its range in the concatenation.
    lists: Vec<(usize, u32)>,
    applicable: Vec<u32>,
}

/// Draws before testing all the actions tried in a state.
const TRIES: usize = 32;
/// The most precondition tests of the climb's random walks.
const CLIMB_TESTS: u64 = 100_000_000;

impl Walker<'_> {
    fn list(&self, key: u32) -> &[u32] {
        match key {
            u32::MAX => &self.successors.always,
            f => &self.successors.by_fact[f as usize],
        }
    }

    /// A uniformly random action applicable in `state`, if there is one.
    fn step(&mut self, state: &[u32], rng: &mut fastrand::Rng) -> Option<u32> {
        self.lists.clear();
        let mut total = 0;
        for (w, &word) in state[..self.task.fact_words()].iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let f = (w * 32) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                if let Some(n) = self.successors.by_fact.get(f as usize).map(Vec::len).filter(|&n| n > 0) {
                    total += n;
                    self.lists.push((total, f));
                }
            }
        }
        if !self.successors.always.is_empty() {
            total += self.successors.always.len();
            self.lists.push((total, u32::MAX));
        }
        if total == 0 {
            return None;
        }
        for _ in 0..TRIES {
            let r = rng.usize(..total);
            let (end, key) = self.lists[self.lists.partition_point(|&(end, _)| end <= r)];
            let list = self.list(key);
            let a = list[r + list.len() - end];
            self.tests += 1;
            if self.task.actions[a as usize].precondition.holds(state) {
                return Some(a);
            }
        }
        self.tests += total as u64;
        self.successors.applicable(self.task, state, &mut self.applicable);
        (!self.applicable.is_empty()).then(|| self.applicable[rng.usize(..self.applicable.len())])
    }

    /// [`SAMPLES`] states at the ends of walks from the initial state, none a dead end
    /// by `value`; `None` when the initial state is one, when walks keep meeting dead
    /// ends, or past [`CLIMB_TESTS`].
    fn sample(
        &mut self,
        value: &dyn Fn(&[u32]) -> Option<u64>,
        dead: &dyn Fn(&[u32]) -> bool,
        rng: &mut fastrand::Rng,
    ) -> Option<Vec<State>> {
        let task = self.task;
        let h = value(&task.init)?;
        let mean_cost = task.actions.iter().map(|a| a.cost as f64).sum::<f64>() / task.actions.len().max(1) as f64;
        // Steps of a plan, as the collection estimates them; walks of about twice that.
        let depth = ((h as f64 / mean_cost.max(1.0)).ceil() as usize).max(1);
        let mut next = Vec::new();
        let mut samples = Vec::with_capacity(SAMPLES);
        while samples.len() < SAMPLES {
            let length = (0..4 * depth).filter(|_| rng.bool()).count();
            let mut state = task.init.clone();
            let mut restarts = 0;
            for _ in 0..length {
                let moved = self
                    .step(&state, rng)
                    .is_some_and(|a| task.actions[a as usize].apply(&state, &mut next).is_ok() && !dead(&next));
                if moved {
                    std::mem::swap(&mut state, &mut next);
                } else {
                    // A dead end: start again from the initial state.
                    restarts += 1;
                    if restarts > 4 * length + 100 {
                        return None;
                    }
                    state.clone_from(&task.init);
                }
                if self.tests > CLIMB_TESTS {
                    return None;
                }
            }
            samples.push(state);
        }
        Some(samples)
    }
}

#[cfg(test)]
mod tests {
    use super::super::project::Grouping;
    use super::*;

    /// Three parcels, two vans, four towns on a ring with roads of several lengths.
    fn delivery() -> Task {
        let d = "(define (domain delivery) (:requirements :typing :action-costs)
          (:types town van parcel)
          (:predicates (at ?v - van ?t - town) (parcel-at ?p - parcel ?t - town) (in ?p - parcel ?v - van)
                       (road ?a ?b - town))
          (:functions (len ?a ?b - town) (total-cost))
          (:action drive :parameters (?v - van ?a ?b - town) :precondition (and (at ?v ?a) (road ?a ?b))
            :effect (and (not (at ?v ?a)) (at ?v ?b) (increase (total-cost) (len ?a ?b))))
          (:action load :parameters (?p - parcel ?v - van ?t - town) :precondition (and (at ?v ?t) (parcel-at ?p ?t))
            :effect (and (not (parcel-at ?p ?t)) (in ?p ?v) (increase (total-cost) 1)))
          (:action unload :parameters (?p - parcel ?v - van ?t - town) :precondition (and (at ?v ?t) (in ?p ?v))
            :effect (and (not (in ?p ?v)) (parcel-at ?p ?t) (increase (total-cost) 1))))";
        let p = "(define (problem p) (:domain delivery)
          (:objects a b c d - town v w - van x y z - parcel)
          (:init (at v a) (at w c) (parcel-at x a) (parcel-at y b) (parcel-at z d)
                 (road a b) (road b a) (road b c) (road c b) (road c d) (road d c) (road d a) (road a d)
                 (= (len a b) 2) (= (len b a) 2) (= (len b c) 3) (= (len c b) 3) (= (len c d) 1) (= (len d c) 1)
                 (= (len d a) 4) (= (len a d) 4) (= (total-cost) 0))
          (:goal (and (parcel-at x c) (parcel-at y d) (parcel-at z b)))
          (:metric minimize (total-cost)))";
        let dom = crate::parse_domain(d).unwrap();
        crate::ground(&dom, &crate::parse_problem(p, &dom).unwrap()).unwrap()
    }

    fn pattern(ctx: &Context, vars: Vec<Variable>) -> Pattern {
        let table = distances(ctx.task, &vars, &ctx.project(&vars).unwrap());
        Pattern { vars, table }
    }

    /// The improvement that the bounds find, with every extension added or in place of
    /// each pattern, is the one the canonical heuristic of the new collection gives.
    #[test]
    fn the_bounded_improvement_is_the_canonical_heuristics() {
        let task = delivery();
        let grouping = Grouping::new(&task);
        let ctx = grouping.context(&task);
        // A pattern for each goal's variable, and one of two of them.
        let goal_var = |f: u32| ctx.vars[ctx.var_of[f as usize] as usize].clone();
        let mut patterns: Vec<Pattern> = task.goal.positive.iter().map(|&f| pattern(&ctx, vec![goal_var(f)])).collect();
        let pair = vec![goal_var(task.goal.positive[0]), goal_var(task.goal.positive[1])];
        patterns.push(pattern(&ctx, pair));
        let touched: Vec<Vec<u32>> = patterns.iter().map(|p| touched_by(ctx.touching, &p.vars)).collect();
        let refs: Vec<&[u32]> = touched.iter().map(Vec::as_slice).collect();
        let sets = additive_sets(&refs);
        let dead = |s: &[u32]| patterns.iter().any(|p| p.value(s) == DEAD);
        let value = |s: &[u32]| canonical(&patterns.iter().map(|p| p.value(s)).collect::<Vec<_>>(), &sets);
        let successors = Successors::new(&task);
        let mut walker =
            Walker { task: &task, successors: &successors, tests: 0, lists: Vec::new(), applicable: Vec::new() };
        let samples = walker.sample(&value, &dead, &mut fastrand::Rng::with_seed(7)).unwrap();
        let sampled = Sampled::new(&patterns, &sets, &samples);
        let (mut checked, mut raised, mut lowered) = (0, 0, 0);
        for p in &patterns {
            for key in extensions(&ctx, &p.vars, &touched_by(ctx.touching, &p.vars)) {
                let vars = ctx.group(&key);
                let Some(_) = fits(&ctx, &vars) else { continue };
                let ext = Extension { touched: touched_by(ctx.touching, &vars), table: None, vars };
                let table = pattern(&ctx, ext.vars.clone()).table;
                for replaced in std::iter::once(None).chain((0..patterns.len()).map(Some)) {
                    let mut refs = refs.clone();
                    match replaced {
                        Some(j) => refs[j] = &ext.touched,
                        None => refs.push(&ext.touched),
                    }
                    let new_sets = additive_sets(&refs);
                    let (mut up, mut down) = (0usize, 0usize);
                    for (s, values) in samples.iter().zip(&sampled.values) {
                        let mut values = values.clone();
                        let t = table[index(&ext.vars, s)];
                        match replaced {
                            Some(j) => values[j] = t,
                            None => values.push(t),
                        }
                        let before = value(s).unwrap();
                        match canonical(&values, &new_sets) {
                            None => up += 1,
                            Some(after) => {
                                (up, down) = (up + usize::from(after > before), down + usize::from(after < before))
                            }
                        }
                    }
                    let without = replaced.map(|j| (j, sampled.without(j, &sets)));
                    let bounded = improvement(
                        &touched,
                        &samples,
                        (&sampled, &sets),
                        &ext,
                        &table,
                        without.as_ref().map(|(j, w)| (*j, w.as_slice())),
                    );
                    assert_eq!(bounded, up.saturating_sub(down), "{:?} in place of {replaced:?}", ext.vars);
                    (checked, raised, lowered) =
                        (checked + 1, raised + usize::from(up > 0), lowered + usize::from(down > 0));
                }
            }
        }
        assert!(checked >= 20 && raised >= 5 && lowered >= 5, "{checked} checked, {raised} raise, {lowered} lower");
    }

    /// A step draws every applicable action, and only those, about equally often.
    #[test]
    fn a_walk_steps_by_a_uniformly_random_applicable_action() {
        let task = delivery();
        let successors = Successors::new(&task);
        let mut walker =
            Walker { task: &task, successors: &successors, tests: 0, lists: Vec::new(), applicable: Vec::new() };
        let mut rng = fastrand::Rng::with_seed(3);
        let mut state = task.init.clone();
        let mut next = Vec::new();
        for depth in 0..4 {
            let mut expected = Vec::new();
            successors.applicable(&task, &state, &mut expected);
            assert!(expected.len() >= 3, "{} actions at depth {depth}", expected.len());
            let mut counts = vec![0usize; task.actions.len()];
            let draws = 2000 * expected.len();
            for _ in 0..draws {
                counts[walker.step(&state, &mut rng).unwrap() as usize] += 1;
            }
            for (a, &n) in counts.iter().enumerate() {
                if expected.contains(&(a as u32)) {
                    assert!(n.abs_diff(2000) < 250, "{} drawn {n} times of {draws}", task.actions[a].name);
                } else {
                    assert_eq!(n, 0, "{} is not applicable", task.actions[a].name);
                }
            }
            task.actions[expected[depth % expected.len()] as usize].apply(&state, &mut next).unwrap();
            std::mem::swap(&mut state, &mut next);
        }
    }
}
