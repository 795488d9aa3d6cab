//! `Rmin`/`Rmax [F goal]` of an MDP exactly, by policy iteration over the proper
//! policies (those that reach the goal with probability 1 from every state of finite
//! value), with the semantics of the floating-point check ([`super::reward`]):
//!
//! - `Rmax` is infinite outside prob1A (some scheduler misses the goal); inside it every
//!   row stays inside, so every policy is proper.
//! - `Rmin` is infinite outside prob1E, and takes only rows that stay inside it; a
//!   policy that circles forever (on zero rewards) is not a way to earn 0.
//!
//! Why the result is the optimum: the iteration starts from a proper policy (the
//! floating-point solution's choices, else an attractor strategy towards the goal),
//! evaluates each policy exactly (sparse elimination), switches a choice only on strict
//! improvement and checks that every policy it evaluates is proper. At the end `V`, the
//! value of a proper policy, satisfies Bellman's equation; for any proper policy `μ`,
//! `V <= r_μ + P_μ V` (for `Rmin`) unrolled `n` times is `V <= Σ_{t<n} P_μ^t r_μ +
//! P_μ^n V`, whose limit is `V^μ` since `P_μ^n → 0`: `V` is the least (for `Rmax` the
//! greatest) value of a proper policy. Were an improper policy ever met, the check ends
//! with an error rather than an answer.

use num_rational::BigRational;
use num_traits::Zero;

use super::exact::{expectation, fraction, solve_unknowns, Exact};
use super::{CheckError, Context, Opt};
use crate::precompute;

/// Policy evaluations at most (each strictly improves, so this only guards a bug).
const MAX_EVALUATIONS: u64 = 100_000;

/// `Rmin`/`Rmax [F goal]` of an MDP with `rewards` per row.
pub(crate) fn mdp_reward_reach(
    cx: &Context,
    probs: &[BigRational],
    rewards: &[f64],
    goal: &[bool],
    opt: Opt,
) -> Result<Exact, CheckError> {
    let model = cx.model;
    let n = model.states();
    let all = vec![true; n];
    let finite = match opt {
        Opt::Max => precompute::prob1a(model, cx.pred(), &all, goal),
        Opt::Min => precompute::prob1e(model, cx.pred(), &all, goal),
    };
    let allowed = |row: u64| model.row(row).all(|(t, _)| finite[t as usize]);
    let unknown: Vec<bool> = (0..n).map(|s| finite[s] && !goal[s]).collect();
    let float = super::reward::reach(cx, rewards, goal, opt)?;
    let guess: Vec<f64> = (0..n as u32).map(|s| float.value(s)).collect();
    let mut policy = start(cx, goal, &unknown, &allowed, opt, (&guess, rewards))?;
    let rewards: Vec<BigRational> = rewards.iter().map(|&r| fraction(r)).collect();
    let mut evaluations = 0;
    loop {
        let x = evaluate(cx, probs, &rewards, &policy, &unknown, goal)
            .ok_or_else(|| CheckError::Unsupported("policy iteration met an improper policy".into()))?;
        evaluations += 1;
        let mut improved = false;
        for s in (0..n as u32).filter(|&s| unknown[s as usize]) {
            let mut best = x[s as usize].clone();
            for row in model.rows(s).filter(|&r| allowed(r)) {
                let q = &rewards[row as usize] + expectation(model, probs, &x, row);
                if (opt == Opt::Max && q > best) || (opt == Opt::Min && q < best) {
                    best = q;
                    policy[s as usize] = row;
                    improved = true;
                }
            }
        }
        if !improved {
            let infinite = finite.iter().map(|&f| !f).collect();
            return Ok(Exact { values: x, infinite, method: "policy iteration, exact", iterations: evaluations });
        }
        if evaluations >= MAX_EVALUATIONS {
            return Err(CheckError::NotConverged { iterations: evaluations });
        }
    }
}

/// A proper first policy: the floating-point solution's best allowed rows if they form
/// one, else an attractor strategy (each state a row that stays finite and has a
/// successor nearer the goal).
fn start(
    cx: &Context,
    goal: &[bool],
    unknown: &[bool],
    allowed: &dyn Fn(u64) -> bool,
    opt: Opt,
    (values, rewards): (&[f64], &[f64]),
) -> Result<Vec<u64>, CheckError> {
    let model = cx.model;
    let n = model.states();
    let mut policy: Vec<u64> = (0..n as u32).map(|s| model.rows(s).start).collect();
    let q = |row: u64| rewards[row as usize] + model.row(row).map(|(t, p)| p * values[t as usize]).sum::<f64>();
    let better = |a: f64, b: f64| if opt == Opt::Max { a > b } else { a < b };
    for s in (0..n as u32).filter(|&s| unknown[s as usize]) {
        if let Some(r) = model.rows(s).filter(|&r| allowed(r)).reduce(|a, b| if better(q(b), q(a)) { b } else { a }) {
            policy[s as usize] = r;
        }
    }
    if reaches(cx, &policy, unknown, goal) {
        return Ok(policy);
    }
    // Attractor layers towards the goal over allowed rows.
    let mut near = goal.to_vec();
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..n as u32 {
            if !unknown[s as usize] || near[s as usize] {
                continue;
            }
            if let Some(r) = model.rows(s).find(|&r| allowed(r) && model.row(r).any(|(t, _)| near[t as usize])) {
                policy[s as usize] = r;
                near[s as usize] = true;
                changed = true;
            }
        }
    }
    if (0..n).any(|s| unknown[s] && !near[s]) {
        return Err(CheckError::Unsupported("no proper policy reaches the goal from every finite state".into()));
    }
    Ok(policy)
}

/// Whether every unknown state reaches the goal under `policy` (then with probability
/// 1: all its rows stay among the finite states).
fn reaches(cx: &Context, policy: &[u64], unknown: &[bool], goal: &[bool]) -> bool {
    let model = cx.model;
    let n = model.states();
    let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
    for s in (0..n as u32).filter(|&s| unknown[s as usize]) {
        for (t, _) in model.row(policy[s as usize]) {
            back[t as usize].push(s);
        }
    }
    let mut seen = goal.to_vec();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| goal[s as usize]).collect();
    while let Some(t) = stack.pop() {
        for &s in &back[t as usize] {
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push(s);
            }
        }
    }
    (0..n).all(|s| !unknown[s] || seen[s])
}

/// The expected rewards of a proper policy (`None` when it is not proper): 0 on the
/// goal and outside the unknowns, the solution of `x = r + A x` on them.
fn evaluate(
    cx: &Context,
    probs: &[BigRational],
    rewards: &[BigRational],
    policy: &[u64],
    unknown: &[bool],
    goal: &[bool],
) -> Option<Vec<BigRational>> {
    if !reaches(cx, policy, unknown, goal) {
        return None;
    }
    let model = cx.model;
    let states: Vec<u32> = (0..model.states() as u32).filter(|&s| unknown[s as usize]).collect();
    let mut x = vec![BigRational::zero(); model.states()];
    solve_unknowns(model, probs, &states, |s| policy[s as usize], |r| rewards[r as usize].clone(), &mut x);
    Some(x)
}
