//! Semantic rules on small tasks of our own: ADL conditions (`or`, `imply`, `exists`,
//! `forall`, equality, constants), conditional and universal effects, `either` types;
//! and the validator refusing tampered plans.

mod common;

use warpcheck_pddl::{ground, parse_domain, parse_problem, search, validate, SearchOptions, ValidationError};

fn plan_of(domain: &str, problem: &str) -> (Vec<String>, u64) {
    let d = parse_domain(domain).unwrap();
    let p = parse_problem(problem, &d).unwrap();
    let task = ground(&d, &p).unwrap();
    let outcome = search(&task, &SearchOptions::default()).unwrap();
    let plan: Vec<String> = outcome.plan.unwrap().iter().map(|&a| task.actions[a].name.clone()).collect();
    assert_eq!(validate(&d, &p, &plan), Ok(outcome.cost.unwrap()), "{plan:?}");
    (plan, outcome.cost.unwrap())
}

#[test]
fn adl_conditions_and_conditional_effects() {
    // To r1 and flip l2 (l1 is on; `flip-all` there would switch l1 off), back through
    // the hall to r2 and flip all (l3 alone): 5 steps, none shorter.
    let (plan, cost) = plan_of(common::SWITCHES, common::SWITCHES_PROBLEM);
    assert_eq!(cost, 5, "{plan:?}");
    assert!(plan.contains(&"(flip l2 r1)".to_string()) && plan.contains(&"(flip-all r2)".to_string()), "{plan:?}");
    // `look` takes lights and rooms (either), but only the hall while in the hall.
    let d = parse_domain(common::SWITCHES).unwrap();
    let p = parse_problem(common::SWITCHES_PROBLEM, &d).unwrap();
    let task = ground(&d, &p).unwrap();
    let looks: Vec<&str> = task.actions.iter().map(|a| a.name.as_str()).filter(|n| n.starts_with("(look")).collect();
    assert_eq!(looks.len(), 6, "{looks:?}");
    // The conditional toggles are conditional effects of the ground `flip-all`.
    let flip_all = task.actions.iter().find(|a| a.name == "(flip-all r1)").unwrap();
    assert_eq!(flip_all.conditional.len(), 4);
    // Walking into a room and looking at it: the goal `(seen r1)`.
    let problem = common::SWITCHES_PROBLEM.replace("(:goal (and", "(:goal (and (seen r1) (seen l1) ");
    let (plan, cost) = plan_of(common::SWITCHES, &problem);
    assert_eq!(cost, 7, "{plan:?}");
}

#[test]
fn tampered_plans_fail_validation() {
    let d = parse_domain(common::SWITCHES).unwrap();
    let p = parse_problem(common::SWITCHES_PROBLEM, &d).unwrap();
    let (plan, _) = plan_of(common::SWITCHES, common::SWITCHES_PROBLEM);
    // A step left out: the next step's precondition or the goal fails.
    for i in 0..plan.len() {
        let mut short = plan.clone();
        short.remove(i);
        assert!(validate(&d, &p, &short).is_err(), "without step {i}: {short:?}");
    }
    // Steps swapped: the first move is the only possible opening (from the hall).
    let mut swapped = plan.clone();
    swapped.swap(0, 1);
    assert!(matches!(validate(&d, &p, &swapped), Err(ValidationError::Precondition { step: 1, .. })), "{swapped:?}");
    // Other objects, unknown actions and arities.
    let mut wrong = plan.clone();
    wrong[0] = "(go hall nowhere)".into();
    assert!(matches!(validate(&d, &p, &wrong), Err(ValidationError::BadStep { step: 1, .. })));
    wrong[0] = "(fly hall r1)".into();
    assert!(matches!(validate(&d, &p, &wrong), Err(ValidationError::BadStep { step: 1, .. })));
    wrong[0] = "(go hall)".into();
    assert!(matches!(validate(&d, &p, &wrong), Err(ValidationError::BadStep { step: 1, .. })));
    wrong[0] = "(go l1 r1)".into();
    assert!(matches!(validate(&d, &p, &wrong), Err(ValidationError::BadStep { step: 1, .. })), "l1 is not a room");
    assert_eq!(validate(&d, &p, &[]), Err(ValidationError::Goal { steps: 0 }));
}

#[test]
fn tampered_plan_of_a_tiny_task_costs_more_or_fails() {
    let dir = common::data_dir().join("tiny");
    let dsrc = std::fs::read_to_string(dir.join("roads-domain.pddl")).unwrap();
    let psrc = std::fs::read_to_string(dir.join("roads-cheapest.pddl")).unwrap();
    let d = parse_domain(&dsrc).unwrap();
    let p = parse_problem(&psrc, &d).unwrap();
    // The optimum: a ticket (4) and the toll road (0); the direct road costs 20.
    let best = ["(buy-ticket)".to_string(), "(drive-toll a e)".to_string()];
    assert_eq!(validate(&d, &p, &best), Ok(4));
    assert_eq!(validate(&d, &p, &["(drive a e)".to_string()]), Ok(20));
    assert!(matches!(
        validate(&d, &p, &["(drive-toll a e)".to_string()]),
        Err(ValidationError::Precondition { step: 1, .. })
    ));
}
