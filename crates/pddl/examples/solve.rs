//! Solves one PDDL task and prints the timings of each phase, for profiling the
//! library without the CLI: `cargo run --release -p warpcheck-pddl --example solve --
//! DOMAIN PROBLEM`.

use std::time::Instant;

use warpcheck_pddl::{ground, parse_domain, parse_problem, search, validate, SearchOptions};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [domain_path, problem_path] = args.as_slice() else {
        return Err("usage: solve DOMAIN PROBLEM".into());
    };
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let (domain_text, problem_text) = (read(domain_path)?, read(problem_path)?);
    let start = Instant::now();
    let domain = parse_domain(&domain_text).map_err(|e| e.render(domain_path, &domain_text))?;
    let problem = parse_problem(&problem_text, &domain).map_err(|e| e.render(problem_path, &problem_text))?;
    let parsed = start.elapsed().as_secs_f64();
    let task = ground(&domain, &problem).map_err(|e| e.render(domain_path, &domain_text))?;
    let grounded = start.elapsed().as_secs_f64();
    println!(
        "grounded: {} facts, {} actions in {:.3} s (parsed in {parsed:.3} s)",
        task.facts.len(),
        task.actions.len(),
        grounded - parsed
    );
    let outcome = search(&task, &SearchOptions::default()).map_err(|e| e.to_string())?;
    let searched = start.elapsed().as_secs_f64();
    println!(
        "search: cost {:?}, {} expanded, {} generated, {} states in {:.3} s",
        outcome.cost,
        outcome.expanded,
        outcome.generated,
        outcome.stored,
        searched - grounded
    );
    if let Some(plan) = outcome.plan {
        let names: Vec<String> = plan.iter().map(|&a| task.actions[a].name.clone()).collect();
        let cost = validate(&domain, &problem, &names).map_err(|e| e.to_string())?;
        println!("validated: cost {cost}, {} steps", names.len());
    }
    Ok(())
}
