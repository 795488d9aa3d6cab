//! Grounding by relaxed reachability: the action instances whose preconditions can
//! hold in the delete relaxation of the task (negative conditions on fluents read as
//! true), computed to a fixpoint from the initial state; then every reachable instance
//! becomes a [`task::Action`] with its conditions simplified: static predicates (those
//! no action changes) are evaluated against `:init` and folded away, facts never
//! reached are false, quantifiers are expanded over the objects of their types.
//!
//! Parameters are bound one at a time in declaration order; every literal of the
//! precondition's top-level conjunction is tested as soon as its variables are bound,
//! which prunes most of the cross product. Each round enumerates all bindings afresh
//! (simple, quadratic in the number of rounds); a semi-naive join is left for later.
//!
//! Numeric comparisons may hold in the relaxation whatever their polarity (a sound
//! over-approximation: the search evaluates them exactly); numeric expressions,
//! effects and costs are grounded by module `numeric`, and [`crate::bounds`] then
//! proves what ranges it can for the numeric fluents.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::{Action, Atom, Domain, Effect, Formula, Problem, Term};
use crate::diagnostic::{Diagnostic, FileKind};
use crate::task::{self, Condition, ConditionalEffect, Task};

mod numeric;

/// The grounder's view of the lifted task.
struct Grounder<'a> {
    domain: &'a Domain,
    problem: &'a Problem,
    /// Predicates some action changes.
    fluent: Vec<bool>,
    /// True atoms of static predicates, as `[predicate, args...]`.
    static_true: FxHashSet<Vec<u32>>,
    /// Reached fluent atoms and their fact numbers.
    reached: FxHashMap<Vec<u32>, u32>,
    /// Reused buffer for atom keys.
    key: Vec<u32>,
    /// Candidate indices of this round: for (predicate, positions bound, position
    /// wanted), the values wanted by the values at the bound positions, over the
    /// static atoms and the fluent atoms reached when the index was built.
    index: FxHashMap<IndexKey, FxHashMap<Vec<u32>, Vec<u32>>>,
    /// Ground numeric fluents by function and objects: their variable.
    vars: FxHashMap<(usize, Vec<usize>), u32>,
    /// The numeric fluents, by variable.
    numeric: Vec<task::NumericVar>,
    /// The state word of numeric variable 0 (the facts' words come first).
    numeric_base: u32,
    /// The file whose conditions are being grounded (the domain's, then the problem's).
    file: FileKind,
    /// The first error met in a condition (whose grounding does not return errors).
    failure: Option<Diagnostic>,
    /// Numeric fluents are held in units of `1 / scale`; in the first grounding, at
    /// scale 1, a value that is not a multiple of that unit is noted in `needs` (the
    /// least common denominator so far, first met at `inexact`) instead of failing.
    scale: i128,
    needs: i128,
    inexact: Option<(FileKind, crate::diagnostic::Span)>,
}

/// An index of atoms: predicate, mask of the argument positions given, position wanted.
type IndexKey = (usize, u32, usize);

/// Grounds `problem` of `domain` into a [`Task`]. Fails on numbers the task cannot
/// hold (module `numeric`: a cost that is not a non-negative integer, a changing
/// fluent's value outside `i32`, an expression that could overflow `i64`).
pub fn ground(domain: &Domain, problem: &Problem) -> Result<Task, Diagnostic> {
    let mut fluent = vec![false; domain.predicates.len()];
    for a in &domain.actions {
        mark_fluents(&a.effects, &mut fluent);
    }
    let mut g = Grounder {
        domain,
        problem,
        fluent,
        static_true: FxHashSet::default(),
        reached: FxHashMap::default(),
        key: Vec::new(),
        index: FxHashMap::default(),
        vars: FxHashMap::default(),
        numeric: Vec::new(),
        numeric_base: 0,
        file: FileKind::Domain,
        failure: None,
        scale: 1,
        needs: 1,
        inexact: None,
    };
    for (p, args) in &problem.init {
        let key: Vec<u32> = std::iter::once(*p as u32).chain(args.iter().map(|&o| o as u32)).collect();
        if g.fluent[*p] {
            let n = g.reached.len() as u32;
            g.reached.entry(key).or_insert(n);
        } else {
            g.static_true.insert(key);
        }
    }
    // The relaxed fixpoint: add the add effects of every relaxed-applicable instance.
    let mut instances: Vec<(usize, Vec<usize>)>;
    loop {
        let before = g.reached.len();
        // Indices over fluent atoms go stale as atoms are reached: rebuilt every round
        // (candidates from a stale index are a subset, and the next round sees the rest).
        g.index.clear();
        instances = Vec::new();
        for (i, action) in domain.actions.iter().enumerate() {
            let literals = top_literals(&action.precondition);
            let mut binding = vec![usize::MAX; action.slots];
            g.bind(action, &literals, 0, &mut binding, &mut |g, binding| {
                if g.relaxed(&action.precondition, binding, true) {
                    g.reach_adds(&action.effects, binding);
                    instances.push((i, binding[..action.parameters.len()].to_vec()));
                }
            });
        }
        if g.reached.len() == before {
            break;
        }
    }
    let mut facts = vec![String::new(); g.reached.len()];
    for (key, &f) in &g.reached {
        facts[f as usize] = g.atom_name(key);
    }
    // The words of the facts, those of a net-benefit task's end phase included
    // (`compile_soft_goals`); the numeric fluents' words follow.
    let end_facts = if problem.net_benefit.is_some() { 1 + problem.soft_goals.len() } else { 0 };
    let fact_words = (facts.len() + end_facts).div_ceil(32).max(1);
    g.numeric_base = u32::try_from(fact_words).expect("fewer facts than 2^37");
    let mut init = vec![0u32; fact_words];
    for (p, args) in &problem.init {
        if g.fluent[*p] {
            let key: Vec<u32> = std::iter::once(*p as u32).chain(args.iter().map(|&o| o as u32)).collect();
            let f = g.reached[&key];
            init[(f / 32) as usize] |= 1 << (f % 32);
        }
    }
    // Numbers: first at scale 1; when some value that meets a numeric fluent is not an
    // integer, once more with the fluents held in units of the least common
    // denominator of those values (`Task::scale`).
    let mut task = g.task(&instances, &facts, &init, fact_words)?;
    if g.needs > 1 {
        g.scale_to(g.needs)?;
        task = g.task(&instances, &facts, &init, fact_words)?;
    }
    crate::bounds::prove(&mut task);
    Ok(task)
}

/// Net benefit as cost (Keyder and Geffner, JAIR 2009): a fact `ended` that every
/// action needs false, an action `(:end)` that sets it, then the soft goals in order,
/// each `(:collect NAME)` at no cost where it holds or `(:forgo NAME)` at its penalty;
/// the goal adds `ended` and the last soft goal's `done`. An optimal plan of the result
/// is an optimal plan of the net-benefit task followed by the end phase, and the best
/// net benefit is `C` less its cost. The end phase's actions follow the domain's
/// (`Task::end_phase`).
fn compile_soft_goals(task: &mut Task, soft: Vec<(Condition, u64, String)>) {
    let ended = task.facts.len() as u32;
    task.facts.push("(:ended)".into());
    for (_, _, name) in &soft {
        task.facts.push(format!("(:done {name})"));
    }
    // `ground` left room for these facts before the numeric fluents' words.
    debug_assert!(task.facts.len() <= task.fact_words() * 32);
    for a in &mut task.actions {
        a.precondition.negative.push(ended);
        a.precondition.negative.sort_unstable();
    }
    let step = |name: String, precondition: Condition, add: u32, cost: u64| task::Action {
        name,
        precondition,
        add: vec![add],
        delete: vec![],
        conditional: vec![],
        numeric: vec![],
        cost,
    };
    task.actions.push(step("(:end)".into(), Condition { negative: vec![ended], ..Condition::default() }, ended, 0));
    let mut before = ended;
    for (i, (holds, penalty, name)) in soft.into_iter().enumerate() {
        let done = ended + 1 + i as u32;
        let ready = Condition { positive: vec![before], negative: vec![done], ..Condition::default() };
        let mut collect = holds;
        collect.positive.push(before);
        collect.positive.sort_unstable();
        collect.positive.dedup();
        collect.negative.push(done);
        collect.negative.sort_unstable();
        collect.negative.dedup();
        task.actions.push(step(format!("(:collect {name})"), collect, done, 0));
        task.actions.push(step(format!("(:forgo {name})"), ready, done, penalty));
        before = done;
    }
    task.goal.positive.push(before);
    task.goal.positive.sort_unstable();
    task.goal.positive.dedup();
}

fn mark_fluents(effects: &[Effect], fluent: &mut [bool]) {
    for e in effects {
        match e {
            Effect::Add(a) | Effect::Delete(a) => fluent[a.predicate] = true,
            Effect::Forall(_, body) | Effect::When(_, body) => mark_fluents(body, fluent),
            Effect::Cost(_) | Effect::Numeric(..) => {}
        }
    }
}

/// The literals of a precondition's top-level conjunction (nested `and`s flattened),
/// usable to prune bindings: atoms, negated atoms, equalities and their negations.
fn top_literals(f: &Formula) -> Vec<(&Formula, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![f];
    while let Some(f) = stack.pop() {
        match f {
            Formula::And(parts) => stack.extend(parts.iter()),
            Formula::Atom(_) | Formula::Equal(..) => out.push((f, true)),
            Formula::Not(inner) if matches!(**inner, Formula::Atom(_) | Formula::Equal(..)) => out.push((inner, false)),
            _ => {}
        }
    }
    out
}

/// The largest parameter slot a literal uses, or `None` when it uses none.
fn last_slot(f: &Formula) -> Option<usize> {
    let terms: &[Term] = match f {
        Formula::Atom(a) => &a.args,
        Formula::Equal(a, b) => return [a, b].iter().filter_map(|t| slot(t)).max(),
        _ => &[],
    };
    terms.iter().filter_map(slot).max()
}

fn slot(t: &Term) -> Option<usize> {
    match t {
        Term::Var(v) => Some(*v),
        Term::Object(_) => None,
    }
}

/// Collected ground effects of one instance.
#[derive(Default)]
struct Effects {
    add: Vec<u32>,
    delete: Vec<u32>,
    conditional: Vec<ConditionalEffect>,
    numeric: Vec<task::NumericEffect>,
    cost: u64,
    /// A numeric effect or the cost reads or changes an undefined value.
    inapplicable: bool,
}

impl Grounder<'_> {
    /// The task of the relaxed-reachable `instances` (schema, arguments), at the
    /// current scale: actions, goal and soft goals grounded, numeric fluents numbered
    /// afresh; `init` holds the facts' words.
    fn task(
        &mut self,
        instances: &[(usize, Vec<usize>)],
        facts: &[String],
        init: &[u32],
        fact_words: usize,
    ) -> Result<Task, Diagnostic> {
        let (domain, problem) = (self.domain, self.problem);
        self.vars.clear();
        self.numeric.clear();
        self.file = FileKind::Domain;
        let mut actions = Vec::new();
        for (i, args) in instances {
            let schema = &domain.actions[*i];
            let mut binding = vec![usize::MAX; schema.slots];
            binding[..args.len()].copy_from_slice(args);
            let pre = self.formula(&schema.precondition, &mut binding, true);
            if let Some(d) = self.failure.take() {
                return Err(d);
            }
            if pre == task::Formula::FALSE {
                continue;
            }
            let mut effects = Effects::default();
            self.effects(&schema.effects, &mut binding, &task::Formula::TRUE, &mut effects)?;
            if let Some(d) = self.failure.take() {
                return Err(d);
            }
            if effects.inapplicable {
                continue; // an effect or the cost reads or changes an undefined value
            }
            let cost = problem.step_cost(effects.cost);
            let name = std::iter::once(schema.name.as_str())
                .chain(args.iter().map(|&o| problem.objects[o].name.as_str()))
                .collect::<Vec<_>>()
                .join(" ");
            let mut add = effects.add;
            let mut delete = effects.delete;
            add.sort_unstable();
            add.dedup();
            delete.sort_unstable();
            delete.dedup();
            actions.push(task::Action {
                name: format!("({name})"),
                precondition: Condition::from_formula(pre),
                add,
                delete,
                conditional: effects.conditional,
                numeric: effects.numeric,
                cost,
            });
        }
        self.file = FileKind::Problem;
        let mut goal_binding = vec![usize::MAX; problem.goal_slots];
        let goal = Condition::from_formula(self.formula(&problem.goal, &mut goal_binding, true));
        let soft: Vec<(Condition, u64, String)> = problem
            .soft_goals
            .iter()
            .map(|s| {
                let mut binding = vec![usize::MAX; problem.goal_slots];
                (Condition::from_formula(self.formula(&s.formula, &mut binding, true)), s.penalty, s.name.clone())
            })
            .collect();
        if let Some(d) = self.failure.take() {
            return Err(d);
        }
        let mut init = init.to_vec();
        init.extend(self.numeric.iter().map(|v| v.init as u32));
        let end_phase = actions.len();
        let words = fact_words + self.numeric.len();
        let numeric = std::mem::take(&mut self.numeric);
        let mut task =
            Task { facts: facts.to_vec(), actions, init, goal, words, numeric, scale: self.scale as i64, end_phase };
        if problem.net_benefit.is_some() {
            compile_soft_goals(&mut task, soft);
        }
        Ok(task)
    }
}

impl Grounder<'_> {
    fn object(binding: &[usize], t: &Term) -> usize {
        match t {
            Term::Var(v) => binding[*v],
            Term::Object(o) => *o,
        }
    }

    fn set_key(&mut self, a: &Atom, binding: &[usize]) {
        self.key.clear();
        self.key.push(a.predicate as u32);
        for t in &a.args {
            self.key.push(Self::object(binding, t) as u32);
        }
    }

    fn atom_name(&self, key: &[u32]) -> String {
        let objects: Vec<usize> = key[1..].iter().map(|&o| o as usize).collect();
        self.problem.ground_name(&self.domain.predicates[key[0] as usize].name, &objects)
    }

    /// Static atoms: true in `:init`; fluent atoms: their fact, if reached.
    fn atom_status(&mut self, a: &Atom, binding: &[usize]) -> Result<bool, Option<u32>> {
        self.set_key(a, binding);
        if self.fluent[a.predicate] {
            Err(self.reached.get(self.key.as_slice()).copied())
        } else {
            Ok(self.static_true.contains(self.key.as_slice()))
        }
    }

    /// Binds parameters `depth..` of `action` by backtracking; calls `found` for each
    /// binding that passes the relaxed test of the top-level literals.
    fn bind(
        &mut self,
        action: &Action,
        literals: &[(&Formula, bool)],
        depth: usize,
        binding: &mut Vec<usize>,
        found: &mut dyn FnMut(&mut Self, &mut Vec<usize>),
    ) {
        // Literals whose last variable is the one just bound (or none, at depth 0).
        for &(lit, positive) in literals {
            let due = match last_slot(lit) {
                None => depth == 0,
                Some(s) => s + 1 == depth,
            };
            if due && !self.relaxed(lit, binding, positive) {
                return;
            }
        }
        if depth == action.parameters.len() {
            found(self, binding);
            return;
        }
        let candidates = match self.indexed_candidates(literals, depth, binding) {
            Some(list) => {
                let fitting = self.problem.objects_fitting(&action.parameters[depth].types);
                list.into_iter().filter(|o| fitting.binary_search(&(*o as usize)).is_ok()).map(|o| o as usize).collect()
            }
            None => self.problem.objects_fitting(&action.parameters[depth].types),
        };
        for o in candidates {
            binding[depth] = o;
            self.bind(action, literals, depth + 1, binding, found);
        }
        binding[depth] = usize::MAX;
    }

    /// The values of parameter `depth` that a positive atom of the top-level
    /// conjunction allows given the parameters bound before it (the atom with the most
    /// bound positions), or `None` when no atom mentions the parameter.
    fn indexed_candidates(
        &mut self,
        literals: &[(&Formula, bool)],
        depth: usize,
        binding: &[usize],
    ) -> Option<Vec<u32>> {
        let bound = |t: &Term| match t {
            Term::Object(_) => true,
            Term::Var(v) => *v < depth,
        };
        let best = literals
            .iter()
            .filter_map(|&(f, positive)| match f {
                Formula::Atom(a) if positive && a.args.contains(&Term::Var(depth)) => Some(a),
                _ => None,
            })
            .max_by_key(|a| a.args.iter().filter(|t| bound(t)).count())?;
        let mask = best.args.iter().enumerate().filter(|(_, t)| bound(t)).fold(0u32, |m, (i, _)| m | 1 << i.min(31));
        let want = best.args.iter().position(|t| *t == Term::Var(depth))?;
        if best.args.len() > 31 {
            return None;
        }
        let predicate = best.predicate;
        if !self.index.contains_key(&(predicate, mask, want)) {
            let mut map: FxHashMap<Vec<u32>, Vec<u32>> = FxHashMap::default();
            let atoms = self.static_true.iter().chain(self.reached.keys()).filter(|k| k[0] as usize == predicate);
            for k in atoms {
                let args = &k[1..];
                let key: Vec<u32> = (0..args.len()).filter(|i| mask >> i & 1 == 1).map(|i| args[i]).collect();
                map.entry(key).or_default().push(args[want]);
            }
            for list in map.values_mut() {
                list.sort_unstable();
                list.dedup();
            }
            self.index.insert((predicate, mask, want), map);
        }
        let key: Vec<u32> = best
            .args
            .iter()
            .filter(|t| bound(t))
            .map(|t| match t {
                Term::Object(o) => *o as u32,
                Term::Var(v) => binding[*v] as u32,
            })
            .collect();
        Some(self.index[&(predicate, mask, want)].get(&key).cloned().unwrap_or_default())
    }

    /// Whether `f` (read positively or negated) can hold in the delete relaxation:
    /// negative conditions on fluents are assumed true.
    fn relaxed(&mut self, f: &Formula, binding: &mut Vec<usize>, positive: bool) -> bool {
        match f {
            Formula::Atom(a) => match self.atom_status(a, binding) {
                Ok(truth) => truth == positive,
                Err(reached) => !positive || reached.is_some(),
            },
            Formula::Equal(a, b) => (Self::object(binding, a) == Self::object(binding, b)) == positive,
            Formula::Not(inner) => self.relaxed(inner, binding, !positive),
            Formula::And(parts) if positive => parts.iter().all(|p| self.relaxed(p, binding, true)),
            Formula::And(parts) => parts.iter().any(|p| self.relaxed(p, binding, false)),
            Formula::Or(parts) if positive => parts.iter().any(|p| self.relaxed(p, binding, true)),
            Formula::Or(parts) => parts.iter().all(|p| self.relaxed(p, binding, false)),
            Formula::Imply(a, b) if positive => self.relaxed(a, binding, false) || self.relaxed(b, binding, true),
            Formula::Imply(a, b) => self.relaxed(a, binding, true) && self.relaxed(b, binding, false),
            // Exactly evaluated by the search; either polarity may hold here.
            Formula::Compare(..) => true,
            Formula::Forall(vars, body) | Formula::Exists(vars, body) => {
                let all = matches!(f, Formula::Forall(..)) == positive;
                let mut result = all;
                self.each_binding(vars, 0, binding, &mut |g, binding| {
                    if g.relaxed(body, binding, positive) != all {
                        result = !all;
                        false
                    } else {
                        true
                    }
                });
                result
            }
        }
    }

    /// Calls `visit` for every assignment of `vars` (stops when it returns false).
    fn each_binding(
        &mut self,
        vars: &[crate::ast::Variable],
        i: usize,
        binding: &mut Vec<usize>,
        visit: &mut dyn FnMut(&mut Self, &mut Vec<usize>) -> bool,
    ) -> bool {
        let Some(v) = vars.get(i) else {
            return visit(self, binding);
        };
        for o in self.problem.objects_fitting(&v.types) {
            binding[v.slot] = o;
            if !self.each_binding(vars, i + 1, binding, visit) {
                return false;
            }
        }
        true
    }

    /// Reaches the add effects of an instance (conditional ones when their condition
    /// can hold in the relaxation).
    fn reach_adds(&mut self, effects: &[Effect], binding: &[usize]) {
        let mut binding = binding.to_vec();
        self.reach_adds_in(effects, &mut binding);
    }

    fn reach_adds_in(&mut self, effects: &[Effect], binding: &mut Vec<usize>) {
        for e in effects {
            match e {
                Effect::Add(a) => {
                    self.set_key(a, binding);
                    if !self.reached.contains_key(self.key.as_slice()) {
                        let n = self.reached.len() as u32;
                        self.reached.insert(self.key.clone(), n);
                    }
                }
                Effect::Forall(vars, body) => {
                    self.each_binding(vars, 0, binding, &mut |g, binding| {
                        g.reach_adds_in(body, binding);
                        true
                    });
                }
                Effect::When(condition, body) => {
                    if self.relaxed(condition, binding, true) {
                        self.reach_adds_in(body, binding);
                    }
                }
                Effect::Delete(_) | Effect::Cost(_) | Effect::Numeric(..) => {}
            }
        }
    }

    /// The ground, simplified condition (negation pushed to the atoms).
    fn formula(&mut self, f: &Formula, binding: &mut Vec<usize>, positive: bool) -> task::Formula {
        match f {
            Formula::Atom(a) => match self.atom_status(a, binding) {
                Ok(truth) => constant(truth == positive),
                Err(None) => constant(!positive),
                Err(Some(fact)) if positive => task::Formula::Fact(fact),
                Err(Some(fact)) => task::Formula::NotFact(fact),
            },
            Formula::Equal(a, b) => constant((Self::object(binding, a) == Self::object(binding, b)) == positive),
            Formula::Compare(cmp, a, b) => self.compare(*cmp, a, b, binding, positive),
            Formula::Not(inner) => self.formula(inner, binding, !positive),
            Formula::And(parts) | Formula::Or(parts) => {
                let conjunction = matches!(f, Formula::And(_)) == positive;
                let ground: Vec<task::Formula> = parts.iter().map(|p| self.formula(p, binding, positive)).collect();
                junction(conjunction, ground)
            }
            Formula::Imply(a, b) => {
                let ground = vec![self.formula(a, binding, !positive), self.formula(b, binding, positive)];
                junction(!positive, ground)
            }
            Formula::Forall(vars, body) | Formula::Exists(vars, body) => {
                let conjunction = matches!(f, Formula::Forall(..)) == positive;
                let mut ground = Vec::new();
                self.each_binding(vars, 0, binding, &mut |g, binding| {
                    ground.push(g.formula(body, binding, positive));
                    true
                });
                junction(conjunction, ground)
            }
        }
    }

    /// Collects the ground effects of an instance under `condition`.
    fn effects(
        &mut self,
        effects: &[Effect],
        binding: &mut Vec<usize>,
        condition: &task::Formula,
        out: &mut Effects,
    ) -> Result<(), Diagnostic> {
        for e in effects {
            match e {
                Effect::Add(a) | Effect::Delete(a) => {
                    let Err(Some(fact)) = self.atom_status(a, binding) else {
                        // An add that was never reached has a condition that cannot hold;
                        // a fact never reached is never deleted.
                        continue;
                    };
                    let is_add = matches!(e, Effect::Add(_));
                    if *condition == task::Formula::TRUE {
                        if is_add {
                            out.add.push(fact)
                        } else {
                            out.delete.push(fact)
                        }
                    } else {
                        let c = Condition::from_formula(condition.clone());
                        let (add, delete) = if is_add { (vec![fact], vec![]) } else { (vec![], vec![fact]) };
                        match out.conditional.iter_mut().find(|x| x.condition == c) {
                            Some(x) => {
                                x.add.extend(add);
                                x.delete.extend(delete);
                            }
                            None => {
                                out.conditional.push(ConditionalEffect { condition: c, add, delete, numeric: vec![] })
                            }
                        }
                    }
                }
                Effect::Forall(vars, body) => {
                    let mut result = Ok(());
                    self.each_binding(vars, 0, binding, &mut |g, binding| {
                        result = g.effects(body, binding, condition, out);
                        result.is_ok()
                    });
                    result?;
                }
                Effect::When(c, body) => {
                    let ground = self.formula(c, binding, true);
                    let both = junction(true, vec![condition.clone(), ground]);
                    if both != task::Formula::FALSE {
                        self.effects(body, binding, &both, out)?;
                    }
                }
                Effect::Cost(amount) => match self.cost(amount, binding)? {
                    Some(c) => out.cost = out.cost.saturating_add(c),
                    None => out.inapplicable = true,
                },
                Effect::Numeric(..) => self.numeric_effect(e, binding, condition, out)?,
            }
        }
        Ok(())
    }
}

fn constant(truth: bool) -> task::Formula {
    if truth {
        task::Formula::TRUE
    } else {
        task::Formula::FALSE
    }
}

/// A simplified conjunction (or disjunction): constants folded, nested junctions of
/// the same kind flattened.
fn junction(conjunction: bool, parts: Vec<task::Formula>) -> task::Formula {
    let (unit, zero) = if conjunction {
        (task::Formula::TRUE, task::Formula::FALSE)
    } else {
        (task::Formula::FALSE, task::Formula::TRUE)
    };
    let mut out = Vec::new();
    for p in parts {
        if p == zero {
            return zero;
        }
        if p == unit {
            continue;
        }
        match p {
            task::Formula::And(inner) if conjunction => out.extend(inner),
            task::Formula::Or(inner) if !conjunction => out.extend(inner),
            other => out.push(other),
        }
    }
    if out.len() == 1 {
        return out.remove(0);
    }
    if conjunction {
        task::Formula::And(out)
    } else {
        task::Formula::Or(out)
    }
}
