//! Helpers of the data-driven tests: where the planning benchmark data is, a reader for
//! its CSV tables, and solving one task end to end (parse, ground, search, validate).

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Instant;

use warpcheck_pddl::{
    ground, parse_domain, parse_problem, search, validate, validate_net_benefit, Heuristic, SearchOptions,
};

/// The planning data: `$WARPCHECK_PLANNING`, or `shared/planning` beside the
/// repository. Panics with a clear message when it is absent.
pub fn data_dir() -> PathBuf {
    let dir = match std::env::var_os("WARPCHECK_PLANNING") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/planning")),
    };
    assert!(
        dir.join("results").is_dir(),
        "the planning benchmark data is missing: expected `shared/planning` beside the repository \
         (or set WARPCHECK_PLANNING), looked in {}",
        dir.display()
    );
    dir
}

/// The rows of a CSV file with a header, as maps from column to value (quoted fields
/// with commas and doubled quotes handled).
pub fn csv(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut lines = text.lines().map(fields);
    let header = lines.next().expect("a header");
    lines.filter(|l| l.len() > 1).map(|l| header.iter().cloned().zip(l).collect()).collect()
}

fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// A solved (or proven unsolvable) task.
pub struct Solved {
    /// The plan's steps, `None` when unsolvable.
    pub plan: Option<Vec<String>>,
    /// The cost the search reports.
    pub cost: Option<u64>,
    /// The cost the validator recomputes.
    pub validated_cost: Option<u64>,
    pub facts: usize,
    pub actions: usize,
    pub expanded: u64,
    pub seconds: f64,
}

/// Parses, grounds and searches a task; validates the plan.
pub fn solve(domain: &std::path::Path, problem: &std::path::Path) -> Solved {
    solve_within(domain, problem, None).expect("no time limit")
}

/// The heuristic of `$WARPCHECK_PLAN_HEURISTIC` (`blind`, `hmax`, `lmcut`, `pdb`, `max`), else the default.
pub fn heuristic() -> Heuristic {
    match std::env::var("WARPCHECK_PLAN_HEURISTIC").as_deref() {
        Ok("blind") => Heuristic::Blind,
        Ok("hmax") => Heuristic::Hmax,
        Ok("pdb") => Heuristic::Pdb,
        Ok("max") => Heuristic::Max,
        Ok("lmcut") | Err(_) => Heuristic::LmCut,
        Ok(other) => panic!("WARPCHECK_PLAN_HEURISTIC: `{other}` is not blind, hmax, lmcut, pdb or max"),
    }
}

/// As [`solve`], `None` when the search passes `seconds` (counted from the start of
/// parsing) or stores `$WARPCHECK_PLAN_MAX_STATES` states (default 20 million), with
/// [`heuristic()`].
pub fn solve_within(domain: &std::path::Path, problem: &std::path::Path, seconds: Option<f64>) -> Option<Solved> {
    solve_with(domain, problem, seconds, heuristic())
}

/// As [`solve_within`] with the given heuristic.
pub fn solve_with(
    domain: &std::path::Path,
    problem: &std::path::Path,
    seconds: Option<f64>,
    heuristic: Heuristic,
) -> Option<Solved> {
    let start = Instant::now();
    let dsrc = std::fs::read_to_string(domain).unwrap();
    let psrc = std::fs::read_to_string(problem).unwrap();
    let d = parse_domain(&dsrc).unwrap_or_else(|e| panic!("{}", e.render(&domain.display().to_string(), &dsrc)));
    let p = parse_problem(&psrc, &d).unwrap_or_else(|e| panic!("{}", e.render(&problem.display().to_string(), &psrc)));
    let task = ground(&d, &p).unwrap_or_else(|e| panic!("{}", e.render(&domain.display().to_string(), &dsrc)));
    let deadline = seconds.map(|s| start + std::time::Duration::from_secs_f64(s));
    let threads = std::env::var("WARPCHECK_PLAN_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
    let max_states = std::env::var("WARPCHECK_PLAN_MAX_STATES").ok().and_then(|t| t.parse().ok()).unwrap_or(20_000_000);
    let options = SearchOptions { max_states: Some(max_states), deadline, heuristic, threads };
    let outcome = match search(&task, &options) {
        Ok(o) => o,
        Err(warpcheck_pddl::SearchError::TimeLimit { .. }) => return None,
        // Under a time limit (a coverage run), the bound on states is a resource limit too.
        Err(warpcheck_pddl::SearchError::StateLimit { .. }) if seconds.is_some() => return None,
        Err(e) => panic!("{}: {e}", problem.display()),
    };
    // A net-benefit task's end phase is not part of the plan; its cost is the penalties
    // of the soft goals missed.
    let plan: Option<Vec<String>> = outcome.plan.as_ref().map(|p| task.plan_names(p));
    let validated_cost = plan.as_ref().map(|plan| {
        let invalid = |e| panic!("{}: invalid plan {plan:?}: {e}", problem.display());
        match p.net_benefit {
            Some(_) => validate_net_benefit(&d, &p, plan).map(|(c, missed)| c + missed).unwrap_or_else(invalid),
            None => validate(&d, &p, plan).unwrap_or_else(invalid),
        }
    });
    Some(Solved {
        plan,
        cost: outcome.cost,
        validated_cost,
        facts: task.facts.len(),
        actions: task.actions.len(),
        expanded: outcome.expanded,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A task with every ADL construct: `forall` and `when` effects, `exists`, `or`,
/// `imply`, equality, constants, `either` types.
pub const SWITCHES: &str = "
(define (domain switches)
  (:requirements :adl)
  (:types light room)
  (:constants hall - room)
  (:predicates (on ?l - light) (in ?l - light ?r - room) (at ?r - room) (seen ?x))
  ; Toggles every light of the room.
  (:action flip-all :parameters (?r - room)
    :precondition (at ?r)
    :effect (and (forall (?l - light) (when (and (in ?l ?r) (on ?l)) (not (on ?l))))
                 (forall (?l - light) (when (and (in ?l ?r) (not (on ?l))) (on ?l)))))
  ; One light, only while another light of the room is on.
  (:action flip :parameters (?l - light ?r - room)
    :precondition (and (at ?r) (in ?l ?r) (not (on ?l))
                       (exists (?m - light) (and (not (= ?m ?l)) (in ?m ?r) (on ?m))))
    :effect (on ?l))
  ; Rooms are connected through the hall only.
  (:action go :parameters (?from ?to - room)
    :precondition (and (at ?from) (not (= ?from ?to)) (or (= ?to hall) (= ?from hall)))
    :effect (and (not (at ?from)) (at ?to)))
  (:action look :parameters (?x - (either light room))
    :precondition (imply (at hall) (= ?x hall))
    :effect (seen ?x)))";

pub const SWITCHES_PROBLEM: &str = "
(define (problem two-rooms) (:domain switches)
  (:objects r1 r2 - room l1 l2 l3 - light)
  (:init (at hall) (on l1) (in l1 r1) (in l2 r1) (in l3 r2))
  (:goal (and (on l3) (forall (?l - light) (imply (in ?l r1) (on ?l))))))";

/// A xorshift generator for the random tasks.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as u32
    }

    /// Up to `k` distinct facts of `facts`, sorted.
    pub fn pick(&mut self, k: u32, facts: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..k).map(|_| self.below(facts)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A small random task from `seed`: 3-10 facts, 1-8 actions with positive and negative
/// preconditions (shared among actions, so that some compete), and with `adl`
/// disjunctive preconditions and goals and conditional effects; costs 1, or with
/// `costs` 0 to 4 (zero-cost actions included).
pub fn random_task(seed: u64, adl: bool, costs: bool) -> warpcheck_pddl::Task {
    random_task_sized(seed, adl, costs, (3, 8), if costs { 12 } else { 8 })
}

/// As [`random_task`], larger: 12-19 facts and 10-49 actions, so that zero-cost
/// actions chain and cost layers overlap (thousands of states, at most 2^19).
#[allow(dead_code)] // Used by some of the tests that include this module.
pub fn larger_random_task(seed: u64, adl: bool) -> warpcheck_pddl::Task {
    random_task_sized(seed, adl, true, (12, 8), 40)
}

/// A random task of `facts.0` to `facts.0 + facts.1 - 1` facts and 1 to `actions`
/// actions.
fn random_task_sized(seed: u64, adl: bool, costs: bool, facts: (u32, u32), actions: u32) -> warpcheck_pddl::Task {
    use warpcheck_pddl::task::{Action, Condition, ConditionalEffect, Formula};
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (base, more, most) = (facts.0, facts.1, actions);
    let facts = base + r.below(more);
    // With costs: fewer preconditions, more actions and a goal of one fact, so that more
    // tasks are solvable at a cost above 0.
    let positive = if costs { 1 } else { 2 };
    let conditions: Vec<(Vec<u32>, Vec<u32>)> = (0..10).map(|_| (r.pick(positive, facts), r.pick(1, facts))).collect();
    let mut actions = Vec::new();
    let first = if most > 12 { 10 } else { 1 };
    for a in 0..first + r.below(most) {
        let (positive, negative) = conditions[r.below(10) as usize].clone();
        let rest = (adl && r.below(3) == 0)
            .then(|| Formula::Or(vec![Formula::Fact(r.below(facts)), Formula::NotFact(r.below(facts))]));
        let mut conditional = Vec::new();
        if adl && r.below(2) == 0 {
            let condition = Condition { positive: r.pick(1, facts), negative: r.pick(1, facts), rest: None };
            let (add, delete) = (r.pick(1, facts), r.pick(1, facts));
            conditional.push(ConditionalEffect { condition, add, delete, numeric: vec![] });
        }
        actions.push(Action {
            name: format!("(a{a})"),
            precondition: Condition { positive, negative, rest },
            add: r.pick(2, facts),
            delete: r.pick(2, facts),
            conditional,
            numeric: vec![],
            cost: if costs { u64::from(r.below(5)) } else { 1 },
        });
    }
    let init = vec![r.pick(3, facts).iter().fold(0u32, |w, &f| w | 1 << f)];
    let goal_rest = (adl && r.below(3) == 0).then(|| Formula::And(vec![Formula::NotFact(r.below(facts))]));
    warpcheck_pddl::Task {
        facts: (0..facts).map(|f| format!("(f{f})")).collect(),
        end_phase: actions.len(),
        actions,
        init,
        goal: Condition { positive: r.pick(if costs { 1 } else { 2 }, facts), negative: Vec::new(), rest: goal_rest },
        words: 1,
        numeric: vec![],
        scale: 1,
    }
}

/// [`random_task`] with two numeric fluents (state words 1 and 2, initially 0-3): each
/// action may compare them (`<`, `<=`, `=`, `>=`, `>` over sums, differences, products
/// and negations) in its precondition and assign, increase, decrease or double them, and the
/// goal may compare them too; a conditional effect may increase or decrease one of them
/// when a fact holds and its bound allows (besides the action's own increase or
/// decrease of it: they add up). Increases are guarded by an upper bound and decreases
/// by a lower one, so that the state space stays finite.
#[allow(dead_code)] // Used by some of the tests that include this module.
pub fn random_numeric_task(seed: u64) -> warpcheck_pddl::Task {
    use warpcheck_pddl::numeric::{Assign, Cmp};
    use warpcheck_pddl::task::{Condition, ConditionalEffect, Formula, NumExpr, NumericEffect, NumericVar};
    let mut task = random_task(seed, seed % 2 == 1, true);
    let mut r = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    let var = |w: u32| NumExpr::Var(w);
    let c = |k: i64| NumExpr::Const(k);
    let cmps = [Cmp::Less, Cmp::LessEq, Cmp::Equal, Cmp::GreaterEq, Cmp::Greater];
    let expression = |r: &mut Rng| match r.below(5) {
        0 => var(1 + r.below(2)),
        1 => NumExpr::Add(Box::new(var(1)), Box::new(var(2))),
        2 => NumExpr::Sub(Box::new(var(1 + r.below(2))), Box::new(c(i64::from(r.below(3))))),
        3 => NumExpr::Mul(Box::new(var(1 + r.below(2))), Box::new(c(2))),
        _ => NumExpr::Neg(Box::new(var(1 + r.below(2)))),
    };
    let conjoin = |rest: &mut Option<Formula>, f: Formula| {
        *rest = Some(match rest.take() {
            Some(old) => Formula::And(vec![old, f]),
            None => f,
        })
    };
    for action in &mut task.actions {
        if r.below(2) == 0 {
            let f = Formula::Compare(cmps[r.below(5) as usize], expression(&mut r), c(i64::from(r.below(6)) - 1));
            conjoin(&mut action.precondition.rest, f);
        }
        for v in 0..2u32 {
            let (word, other) = (1 + v, 2 - v);
            let (op, value, guard) = match r.below(5) {
                0 => (Assign::Increase, c(1 + i64::from(r.below(2))), Cmp::Less),
                1 => (Assign::Decrease, c(1), Cmp::Greater),
                2 => (Assign::Assign, NumExpr::Sub(Box::new(var(other)), Box::new(c(1))), Cmp::Greater),
                3 => {
                    // Doubling from 1..5 only (below: the upper guard).
                    conjoin(&mut action.precondition.rest, Formula::Compare(Cmp::Greater, var(word), c(0)));
                    (Assign::ScaleUp, c(2), Cmp::Less)
                }
                _ => continue,
            };
            let bound = if guard == Cmp::Less { 6 } else { 0 };
            conjoin(
                &mut action.precondition.rest,
                Formula::Compare(guard, var(if op == Assign::Assign { other } else { word }), c(bound)),
            );
            action.numeric.push(NumericEffect { var: v, word, op, value });
        }
        if r.below(3) == 0 {
            let v = r.below(2);
            let word = 1 + v;
            if action.numeric.iter().all(|e| e.var != v || e.op.additive()) {
                let (op, guard, bound) = if r.below(2) == 0 {
                    (Assign::Increase, Cmp::Less, 6)
                } else {
                    (Assign::Decrease, Cmp::Greater, 0)
                };
                let facts = task.facts.len() as u32;
                let condition = Condition {
                    positive: vec![r.below(facts)],
                    negative: vec![],
                    rest: Some(Formula::Compare(guard, var(word), c(bound))),
                };
                let numeric = vec![NumericEffect { var: v, word, op, value: c(1) }];
                action.conditional.push(ConditionalEffect { condition, add: vec![], delete: vec![], numeric });
            }
        }
    }
    if r.below(2) == 0 {
        conjoin(&mut task.goal.rest, Formula::Compare(cmps[r.below(5) as usize], var(1), c(i64::from(r.below(4)))));
    }
    task.init.extend([r.below(4), r.below(4)]);
    task.words = 3;
    task.numeric = (0..2)
        .map(|v| NumericVar {
            name: format!("(n{v})"),
            word: 1 + v,
            init: task.init[1 + v as usize] as i32,
            lower: None,
            upper: None,
        })
        .collect();
    task
}
