//! Fuzz target for the PDDL front end: the bytes before the first NUL are the domain,
//! the rest the problem. Both are parsed (errors rendered); small tasks (at most 6
//! objects, actions of at most 4 parameters) are grounded and searched (at most 2000
//! states), and a plan found must pass the lifted validator at the cost the search
//! reports: a differential check of the grounder against the validator. The task as a
//! model builds its CUDA source (the action table; refused for a task with numeric
//! fluents), and its successors of the initial state are the search's first expansion
//! (a numeric value out of range an error there as in the search).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::interface::{Model, Successors};
use warpcheck_pddl::model::{PlanningModel, UNSOLVED};
use warpcheck_pddl::{ground, parse_domain, parse_problem, search, validate, validate_net_benefit, SearchOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (domain_text, problem_text) = text.split_once('\0').unwrap_or((text, ""));
    let domain = match parse_domain(domain_text) {
        Ok(d) => d,
        Err(e) => {
            let _ = e.render("fuzz-domain.pddl", domain_text);
            return;
        }
    };
    let problem = match parse_problem(problem_text, &domain) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.render("fuzz-problem.pddl", problem_text);
            return;
        }
    };
    if problem.objects.len() > 6 || domain.actions.iter().any(|a| a.slots > 4) {
        return;
    }
    let Ok(task) = ground(&domain, &problem) else {
        return;
    };
    let model = PlanningModel::new(task.clone());
    match model.cuda_source(&[UNSOLVED]) {
        Ok(source) => assert!(source.tables[0].data.len() >= 4 + task.actions.len()),
        Err(e) => assert!(!task.numeric.is_empty(), "{e:?}"),
    }
    let (mut successors, mut out_of_range) = (0, 0);
    let deadlock = model.successors().successors(&task.init, |_, next| match next {
        Ok(_) => successors += 1,
        Err(_) => out_of_range += 1,
    });
    let applicable: Vec<_> = task.actions.iter().filter(|a| a.precondition.holds(&task.init)).collect();
    let mut next = Vec::new();
    let failing = applicable.iter().filter(|a| a.apply(&task.init, &mut next).is_err()).count();
    assert_eq!((successors + out_of_range, out_of_range), (applicable.len(), failing));
    assert_eq!(deadlock, applicable.is_empty());
    let Ok(outcome) = search(&task, &SearchOptions { max_states: Some(2000), ..Default::default() }) else {
        return;
    };
    if let Some(plan) = outcome.plan {
        // A net-benefit task's end phase is not part of the plan: its cost is the
        // penalties of the soft goals the plan misses.
        let names = task.plan_names(&plan);
        let replayed = match problem.net_benefit {
            Some(_) => validate_net_benefit(&domain, &problem, &names).map(|(cost, missed)| cost + missed),
            None => validate(&domain, &problem, &names),
        };
        assert_eq!(replayed, Ok(outcome.cost.unwrap()), "{names:?}");
    }
});
