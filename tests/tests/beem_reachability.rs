//! BEEM's reachability properties: for every instance BEEM explored completely, the
//! goal of each `reachability` property of `model.xml` (its propositions expanded for
//! the instance) is checked as the invariant `not (goal)`. The verdict must equal
//! BEEM's `reach-goal` answer, and a counterexample must be no longer than BEEM's.
//! Instances up to one million states run here; the rest with `--ignored`.

use warpcheck_conformance::beem_xml::{reach_goals_in, ReachGoal};
use warpcheck_conformance::*;
use warpcheck_explore::{explore_parallel, Checks, Invariant, Options, ViolationKind};

fn goals_up_to(max_states: u64) -> Vec<ReachGoal> {
    reach_goals_in(&beem_dir(), 0..=max_states)
}

/// Checks a goal; `Ok` carries our verdict (goal reachable) for BEEM's unknown ones.
fn check(goal: &ReachGoal) -> Result<Option<bool>, String> {
    let beem = beem_dir();
    let model_name = goal.instance.rsplit_once('.').unwrap().0;
    let mut dve = load_file(&beem.join(model_name).join(format!("{}.dve", goal.instance)));
    let label = dve.add_predicate(&goal.invariant).map_err(|d| d.render("invariant", &goal.invariant))?;
    let checks = Checks { invariants: vec![Invariant { text: goal.invariant.clone(), label }], ..Checks::default() };
    // Evaluation errors are violations too; explore on past them to find the goal.
    let options = Options { threads: 2, checks, stop_at_first: false, traces: true, ..Options::default() };
    let report = explore_parallel(&dve.model, &options).map_err(|e| e.to_string())?;
    let found = report.violations.iter().find(|v| matches!(v.kind, ViolationKind::Invariant { .. }));
    let name = format!("{} property {} (`{}`)", goal.instance, goal.property, goal.invariant);
    match (found, goal.reachable) {
        (found, None) => Ok(Some(found.is_some())),
        (None, Some(false)) => Ok(None),
        (Some(v), Some(true)) => {
            let length = v.trace.as_ref().map_or(usize::MAX, |t| t.len());
            if length <= goal.length {
                Ok(None)
            } else {
                Err(format!("{name}: counterexample of {length} steps, BEEM found {}", goal.length))
            }
        }
        (found, _) => Err(format!(
            "{name}: goal {} but BEEM says {}",
            if found.is_some() { "reached" } else { "unreachable" },
            if goal.reachable == Some(true) { "reachable" } else { "unreachable" }
        )),
    }
}

/// Checks `goals`, printing our verdicts on the ones BEEM left unknown.
fn check_all(goals: &[ReachGoal]) -> Vec<String> {
    parallel_failures(goals, |g| match check(g)? {
        Some(reachable) => {
            let verdict = if reachable { "reachable" } else { "unreachable" };
            eprintln!("new verdict: {} property {}: goal {verdict} (BEEM: unknown)", g.instance, g.property);
            Ok(())
        }
        None => Ok(()),
    })
}

#[test]
fn reach_goals_up_to_one_million_states_match_beem() {
    let goals = goals_up_to(1_000_000);
    let failures = check_all(&goals);
    assert!(failures.is_empty(), "{} of {} goals differ:\n{}", failures.len(), goals.len(), failures.join("\n"));
    eprintln!("{} reachability goals match BEEM", goals.len());
    assert!(goals.len() > 100, "only {} goals found: is the harness reading model.xml?", goals.len());
}

/// `cargo test --release -p warpcheck-conformance --test beem_reachability -- --ignored --nocapture`
#[test]
#[ignore = "checks the reachability goals of the instances above one million states: minutes"]
fn reach_goals_of_larger_instances_match_beem() {
    let max = std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(15_000_000);
    let small: Vec<(String, u32)> = goals_up_to(1_000_000).into_iter().map(|g| (g.instance, g.property)).collect();
    let goals: Vec<ReachGoal> =
        goals_up_to(max).into_iter().filter(|g| !small.contains(&(g.instance.clone(), g.property))).collect();
    let failures = check_all(&goals);
    assert!(failures.is_empty(), "{} of {} goals differ:\n{}", failures.len(), goals.len(), failures.join("\n"));
    eprintln!("{} reachability goals of instances above 1M states match BEEM or were unknown", goals.len());
}
