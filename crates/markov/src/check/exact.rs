//! Exact answers (`--exact`) on DTMCs and MDPs (CTMCs: `super::exact_ctmc`), as fractions: `P [φ U ψ]`, `P [F ψ]`,
//! their step-bounded forms and `P [X φ]`; on DTMCs also `R [F φ]` (infinite where φ
//! is missed with positive probability, as in PRISM). MDP rewards: `super::exact_reward`
//! (`R [F φ]`) and `super::exact_lra` (`R [S]`).
//!
//! Probabilities are read as the simplest fractions within their floating-point
//! rounding (0.1 is 1/10, 1/3 stays 1/3); a state whose fractions then do not sum to
//! exactly 1 is an error, never a rounded answer. Unbounded properties: the graph
//! precomputation of [`crate::precompute`], then
//!
//! - on a DTMC, the linear system of the other states solved by sparse elimination
//!   over the rationals, in Markowitz order (`solve`);
//! - on an MDP, policy iteration: a policy read off the floating-point solution,
//!   evaluated exactly, improved while some choice is strictly better. The result is
//!   the value of an actual policy (so at most `Pmax`, at least `Pmin`) and a fixed
//!   point of the Bellman operator (so at least its least fixed point, which is
//!   `Pmax`; for `Pmin` the fixed point is unique once the states of value 0 are
//!   known): it is exact.
//!
//! Bounded properties take their steps in rationals. Exact arithmetic grows with the
//! model: this is for models of thousands of states, not millions.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rustc_hash::{FxHashMap, FxHashSet};

use super::exact_reward::mdp_reward_reach;
use super::property::{Bound, PathFormula, RewardPath};
use super::{reach, CheckError, Context, Opt, Options, Property, Query};
use crate::{precompute, ModelType, SparseModel};

/// Exact values of a property, one per state.
#[derive(Clone, Debug)]
pub struct Exact {
    /// The values (0 where `infinite`).
    pub values: Vec<BigRational>,
    /// Per state: the value is infinite (an expected reward; empty when none is).
    pub infinite: Vec<bool>,
    /// What computed them (e.g. `policy iteration, exact`).
    pub method: &'static str,
    /// Policy evaluations, or steps of a bounded property.
    pub iterations: u64,
}

impl Exact {
    pub(crate) fn new(values: Vec<BigRational>, method: &'static str, iterations: u64) -> Exact {
        Exact { values, infinite: Vec::new(), method, iterations }
    }

    fn is_infinite(&self, s: u32) -> bool {
        self.infinite.get(s as usize).copied().unwrap_or(false)
    }

    /// The value of state `s` as a fraction, `7/10` (a whole number alone: `1`;
    /// `inf` when infinite).
    pub fn fraction(&self, s: u32) -> String {
        if self.is_infinite(s) {
            return "inf".into();
        }
        self.values[s as usize].to_string()
    }

    /// The value of state `s` as the nearest float.
    pub fn float(&self, s: u32) -> f64 {
        if self.is_infinite(s) {
            return f64::INFINITY;
        }
        num_traits::ToPrimitive::to_f64(&self.values[s as usize]).unwrap_or(f64::NAN)
    }
}

/// Policy improvements at most (each one strictly improves the policy, so this only
/// guards against a bug).
const MAX_IMPROVEMENTS: u64 = 100_000;

/// Checks `property` on `model` exactly.
pub fn check_exact(model: &SparseModel, property: &Property, options: &Options) -> Result<Exact, CheckError> {
    let unsupported = || {
        CheckError::Unsupported(
            "--exact answers P=?, Pmin=? and Pmax=? of X, F, U and their step bounds, R=? (min, max) \
             of F, C<=k, I=k and S, and T=? (min, max) of F, on DTMCs and MDPs, and S=? on DTMCs"
                .into(),
        )
    };
    let steady = matches!(property.query, Query::Steady(_) | Query::Reward { path: RewardPath::Steady, .. });
    if model.model_type == ModelType::Ctmc {
        return super::exact_ctmc::check_ctmc(model, property, options);
    }
    if steady && model.model_type == ModelType::Dtmc {
        // A DTMC's long-run averages are a CTMC's of rate-1 exits; its rows must be
        // exact distributions.
        fractions(model)?;
        return super::exact_ctmc::check_ctmc(model, property, options);
    }
    let cx = Context::new(model, options);
    if let Query::Reward { reward, opt, path } = &property.query {
        let name = reward.as_deref();
        return match path {
            RewardPath::Reach(goal) => {
                let rewards = super::reward::row_rewards(model, name)?;
                let (probs, goal) = (fractions(model)?, cx.states(goal)?);
                match model.model_type {
                    ModelType::Mdp => mdp_reward_reach(&cx, &probs, &rewards, &goal, cx.opt(*opt, "R")?),
                    _ => reward_reach(&cx, &probs, &rewards.iter().map(|&r| fraction(r)).collect::<Vec<_>>(), &goal),
                }
            }
            RewardPath::Cumulative(k) => {
                let rows: Vec<BigRational> =
                    super::reward::row_rewards(model, name)?.iter().map(|&r| fraction(r)).collect();
                let zero = vec![BigRational::zero(); model.states()];
                Ok(steps(model, &fractions(model)?, Some(&rows), zero, cx.steps(k, false)?, cx.opt(*opt, "R")?))
            }
            RewardPath::Instant(k) => {
                let state = super::reward::state_rewards(model, name)?.iter().map(|&r| fraction(r)).collect();
                Ok(steps(model, &fractions(model)?, None, state, cx.steps(k, false)?, cx.opt(*opt, "R")?))
            }
            RewardPath::Steady if model.model_type == ModelType::Mdp => {
                let rewards: Vec<BigRational> =
                    super::reward::row_rewards(model, name)?.iter().map(|&r| fraction(r)).collect();
                super::exact_lra::long_run(&cx, &fractions(model)?, &rewards, cx.opt(*opt, "R")?)
            }
            _ => Err(unsupported()),
        };
    }
    if let Query::Time { opt, goal } = &property.query {
        // Expected steps: a reward of 1 per step.
        let ones = vec![1.0; model.choices() as usize];
        let (probs, goal) = (fractions(model)?, cx.states(goal)?);
        return match model.model_type {
            ModelType::Mdp => mdp_reward_reach(&cx, &probs, &ones, &goal, cx.opt(*opt, "T")?),
            _ => reward_reach(&cx, &probs, &vec![BigRational::one(); ones.len()], &goal),
        };
    }
    let Query::Prob { opt, path } = &property.query else { return Err(unsupported()) };
    let opt = cx.opt(*opt, "P")?;
    let probs = fractions(model)?;
    match path {
        PathFormula::Next(phi) => {
            let phi = cx.states(phi)?;
            let x: Vec<BigRational> = phi.iter().map(|&b| indicator(b)).collect();
            let values = (0..model.states() as u32).map(|s| best_row(model, &probs, &x, s, opt)).collect();
            Ok(Exact::new(values, "one step, exact", 1))
        }
        PathFormula::Until { left, right, bound } => {
            let (left, right) = (cx.states(left)?, cx.states(right)?);
            match bound {
                Bound::None => until(&cx, &probs, &left, &right, opt),
                Bound::Upper { t, strict } => bounded(model, &probs, &left, &right, cx.steps(t, *strict)?, opt),
                Bound::Interval(..) => Err(unsupported()),
            }
        }
    }
}

fn indicator(b: bool) -> BigRational {
    if b {
        BigRational::one()
    } else {
        BigRational::zero()
    }
}

/// The simplest fraction within a few units in the last place of `p` (continued
/// fraction convergents), or `p`'s exact binary value if none is.
pub fn fraction(p: f64) -> BigRational {
    if p == 0.0 || !p.is_finite() {
        return BigRational::from_float(p).unwrap_or_else(BigRational::zero);
    }
    let tolerance = p.abs() * 4.0 * f64::EPSILON;
    let (mut h0, mut h1, mut k0, mut k1) = (0u128, 1u128, 1u128, 0u128);
    let mut x = p.abs();
    for _ in 0..64 {
        let a = x.floor();
        if a > 1e18 {
            break;
        }
        let a = a as u128;
        let (Some(h2), Some(k2)) =
            (a.checked_mul(h1).and_then(|v| v.checked_add(h0)), a.checked_mul(k1).and_then(|v| v.checked_add(k0)))
        else {
            break;
        };
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        if (h1 as f64 / k1 as f64 - p.abs()).abs() <= tolerance {
            let f = BigRational::new(BigInt::from(h1), BigInt::from(k1));
            return if p < 0.0 { -f } else { f };
        }
        let rest = x - x.floor();
        if rest == 0.0 {
            break;
        }
        x = 1.0 / rest;
    }
    BigRational::from_float(p).unwrap_or_else(BigRational::zero)
}

/// Solves `x(s) = c(s) + Σ_t p(s, t) x(t)` for the `unknowns`, over the entries of
/// row `row(s)` and the constant `c(s) = constant(row(s))`, where `x(t)` of any other
/// state is its value in `values`; writes the solution into `values`.
pub(crate) fn solve_unknowns(
    model: &SparseModel,
    probs: &[BigRational],
    unknowns: &[u32],
    row: impl Fn(u32) -> u64,
    constant: impl Fn(u64) -> BigRational,
    values: &mut [BigRational],
) {
    let mut local = vec![u32::MAX; model.states()];
    for (i, &s) in unknowns.iter().enumerate() {
        local[s as usize] = i as u32;
    }
    let mut rows = Vec::with_capacity(unknowns.len());
    let mut b = Vec::with_capacity(unknowns.len());
    for &s in unknowns {
        let r = row(s);
        let mut coefficients: FxHashMap<u32, BigRational> = FxHashMap::default();
        let mut c = constant(r);
        for (t, p) in entries(model, probs, r) {
            match local[t as usize] {
                u32::MAX if values[t as usize].is_zero() => {}
                u32::MAX => c += p * &values[t as usize],
                i => *coefficients.entry(i).or_insert_with(BigRational::zero) += p,
            }
        }
        rows.push(coefficients);
        b.push(c);
    }
    for (&s, v) in unknowns.iter().zip(solve(rows, b)) {
        values[s as usize] = v;
    }
}

/// Every matrix entry as a fraction; each row must sum to exactly 1.
fn fractions(model: &SparseModel) -> Result<Vec<BigRational>, CheckError> {
    let probs: Vec<BigRational> = model.values.iter().map(|&v| fraction(v)).collect();
    for s in 0..model.states() as u32 {
        for row in model.rows(s) {
            let range = model.row_starts[row as usize] as usize..model.row_starts[row as usize + 1] as usize;
            let sum: BigRational = probs[range].iter().sum();
            if !sum.is_one() {
                return Err(CheckError::Unsupported(format!(
                    "--exact: the probabilities of state {s} sum to {sum}, not 1, as fractions \
                     (the model's numbers are not exact fractions)"
                )));
            }
        }
    }
    Ok(probs)
}

/// The entries of `row`: target and exact probability.
pub(crate) fn entries<'a>(
    model: &'a SparseModel,
    probs: &'a [BigRational],
    row: u64,
) -> impl Iterator<Item = (u32, &'a BigRational)> + 'a {
    let range = model.row_starts[row as usize] as usize..model.row_starts[row as usize + 1] as usize;
    model.columns[range.clone()].iter().copied().zip(&probs[range])
}

pub(crate) fn expectation(model: &SparseModel, probs: &[BigRational], x: &[BigRational], row: u64) -> BigRational {
    entries(model, probs, row).map(|(t, p)| p * &x[t as usize]).sum()
}

/// The best expectation of `x` over the choices of state `s`.
fn best_row(model: &SparseModel, probs: &[BigRational], x: &[BigRational], s: u32, opt: Opt) -> BigRational {
    model
        .rows(s)
        .map(|row| expectation(model, probs, x, row))
        .reduce(|a, b| if better(&b, &a, opt) { b } else { a })
        .expect("every state has a choice")
}

/// Whether `a` is better than `b` for `opt`.
pub(crate) fn better(a: &BigRational, b: &BigRational, opt: Opt) -> bool {
    match opt {
        Opt::Max => a > b,
        Opt::Min => a < b,
    }
}

/// `k` steps from `x`: each state's best row of `reward[row] + Σ p x[t]` (`R [C<=k]`
/// from 0 with the row rewards, `R [I=k]` from the state rewards without).
fn steps(
    model: &SparseModel,
    probs: &[BigRational],
    reward: Option<&[BigRational]>,
    mut x: Vec<BigRational>,
    k: u64,
    opt: Opt,
) -> Exact {
    for _ in 0..k {
        x = (0..model.states() as u32)
            .map(|s| {
                model
                    .rows(s)
                    .map(|row| {
                        expectation(model, probs, &x, row)
                            + reward.map_or_else(BigRational::zero, |r| r[row as usize].clone())
                    })
                    .reduce(|a, b| if better(&b, &a, opt) { b } else { a })
                    .expect("every state has a choice")
            })
            .collect();
    }
    Exact::new(x, "bounded steps, exact", k)
}

/// `P [left U<=k right]`, step by step.
fn bounded(
    model: &SparseModel,
    probs: &[BigRational],
    left: &[bool],
    right: &[bool],
    k: u64,
    opt: Opt,
) -> Result<Exact, CheckError> {
    let mut x: Vec<BigRational> = right.iter().map(|&b| indicator(b)).collect();
    for _ in 0..k {
        x = (0..model.states() as u32)
            .map(|s| match (right[s as usize], left[s as usize]) {
                (true, _) => BigRational::one(),
                (false, false) => BigRational::zero(),
                (false, true) => best_row(model, probs, &x, s, opt),
            })
            .collect();
    }
    Ok(Exact::new(x, "bounded steps, exact", k))
}

/// `P [left U right]`: precomputation, then elimination (DTMC) or policy iteration (MDP).
pub(crate) fn until(
    cx: &Context,
    probs: &[BigRational],
    left: &[bool],
    right: &[bool],
    opt: Opt,
) -> Result<Exact, CheckError> {
    let model = cx.model;
    let mdp = model.model_type == ModelType::Mdp;
    let (zero, one) = reach::zero_one(cx, left, right, opt);
    let maybe: Vec<bool> = zero.iter().zip(&one).map(|(&z, &o)| !z && !o).collect();
    let mut policy: Vec<u64> = (0..model.states() as u32).map(|s| model.rows(s).start).collect();
    if mdp && maybe.contains(&true) {
        // Start from the choices the floating-point solution prefers.
        let float = reach::until(cx, left, right, opt)?;
        let v: Vec<f64> = (0..model.states() as u32).map(|s| float.value(s)).collect();
        for s in (0..model.states() as u32).filter(|&s| maybe[s as usize]) {
            let q = |row: u64| -> f64 {
                let range = model.row_starts[row as usize] as usize..model.row_starts[row as usize + 1] as usize;
                model.columns[range.clone()].iter().zip(&model.values[range]).map(|(&t, &p)| p * v[t as usize]).sum()
            };
            let better_f = |a: f64, b: f64| if opt == Opt::Max { a > b } else { a < b };
            policy[s as usize] = model.rows(s).reduce(|a, b| if better_f(q(b), q(a)) { b } else { a }).unwrap();
        }
    }
    let mut evaluations = 0;
    loop {
        let x = evaluate(model, probs, &policy, &maybe, &one);
        evaluations += 1;
        if !mdp {
            return Ok(Exact::new(x, "sparse elimination, exact", evaluations));
        }
        let mut improved = false;
        for s in (0..model.states() as u32).filter(|&s| maybe[s as usize]) {
            let mut best = x[s as usize].clone();
            for row in model.rows(s) {
                let q = expectation(model, probs, &x, row);
                if better(&q, &best, opt) {
                    best = q;
                    policy[s as usize] = row;
                    improved = true;
                }
            }
        }
        if !improved {
            return Ok(Exact::new(x, "policy iteration, exact", evaluations));
        }
        if evaluations >= MAX_IMPROVEMENTS {
            return Err(CheckError::NotConverged { iterations: evaluations });
        }
    }
}

/// `R [F goal]` on a DTMC (`rewards` per state): infinite where the goal is missed
/// with positive probability, 0 on the goal, else the solution of `x = r + A x`.
pub(crate) fn reward_reach(
    cx: &Context,
    probs: &[BigRational],
    rewards: &[BigRational],
    goal: &[bool],
) -> Result<Exact, CheckError> {
    let model = cx.model;
    let all = vec![true; model.states()];
    let (_, sure) = precompute::prob01(model, cx.pred(), &all, goal);
    let infinite: Vec<bool> = sure.iter().map(|&s| !s).collect();
    let unknowns: Vec<u32> = (0..model.states() as u32).filter(|&s| sure[s as usize] && !goal[s as usize]).collect();
    // Every successor of a state that surely reaches the goal surely does too: the
    // other targets are goal states, of value 0.
    let mut values = vec![BigRational::zero(); model.states()];
    solve_unknowns(model, probs, &unknowns, |s| model.rows(s).start, |r| rewards[r as usize].clone(), &mut values);
    Ok(Exact { values, infinite, method: "sparse elimination, exact", iterations: 1 })
}

/// The exact reachability values of the chain a policy induces: 1 on `one`, 0 where
/// the chain cannot reach `one` through `maybe` states, the solution of the linear
/// system elsewhere.
fn evaluate(
    model: &SparseModel,
    probs: &[BigRational],
    policy: &[u64],
    maybe: &[bool],
    one: &[bool],
) -> Vec<BigRational> {
    let n = model.states();
    let mut x: Vec<BigRational> = one.iter().map(|&o| indicator(o)).collect();
    // The maybe states that reach `one` under the policy: backwards from the direct ones.
    let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut reaches = vec![false; n];
    let mut stack = Vec::new();
    for s in (0..n as u32).filter(|&s| maybe[s as usize]) {
        for (t, _) in entries(model, probs, policy[s as usize]) {
            if one[t as usize] && !reaches[s as usize] {
                reaches[s as usize] = true;
                stack.push(s);
            } else if maybe[t as usize] {
                back[t as usize].push(s);
            }
        }
    }
    while let Some(t) = stack.pop() {
        for &s in &back[t as usize] {
            if !reaches[s as usize] {
                reaches[s as usize] = true;
                stack.push(s);
            }
        }
    }
    let unknowns: Vec<u32> = (0..n as u32).filter(|&s| reaches[s as usize]).collect();
    solve_unknowns(model, probs, &unknowns, |s| policy[s as usize], |_| BigRational::zero(), &mut x);
    x
}

/// Solves `x = A x + b` (`A` by rows, no row of `I - A` singular) by eliminating the
/// unknowns one by one, each time the one of the smallest Markowitz cost (entries of
/// its row × unknowns whose rows hold it: the fill-in its elimination can create),
/// then substituting back in the reverse order. An unknown outside every cycle costs
/// nothing when its successors are gone, so acyclic parts are eliminated successors
/// first without fill-in; inside strongly connected parts the order keeps the fill-in
/// (and the growth of the fractions) small.
pub(crate) fn solve(mut rows: Vec<FxHashMap<u32, BigRational>>, mut b: Vec<BigRational>) -> Vec<BigRational> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = rows.len();
    let mut preds: Vec<FxHashSet<u32>> = vec![FxHashSet::default(); n];
    for (s, row) in rows.iter().enumerate() {
        for &t in row.keys() {
            if t as usize != s {
                preds[t as usize].insert(s as u32);
            }
        }
    }
    let cost = |rows: &[FxHashMap<u32, BigRational>], preds: &[FxHashSet<u32>], s: usize| -> u64 {
        let own = rows[s].len() - usize::from(rows[s].contains_key(&(s as u32)));
        own as u64 * preds[s].len() as u64
    };
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> =
        (0..n).map(|s| Reverse((cost(&rows, &preds, s), s as u32))).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((c, s))) = heap.pop() {
        let s = s as usize;
        if done[s] {
            continue;
        }
        let now = cost(&rows, &preds, s);
        if c != now {
            heap.push(Reverse((now, s as u32)));
            continue;
        }
        done[s] = true;
        order.push(s as u32);
        if let Some(l) = rows[s].remove(&(s as u32)) {
            let scale = (BigRational::one() - l).recip();
            rows[s].values_mut().for_each(|c| *c *= &scale);
            b[s] *= &scale;
        }
        let row_s: Vec<(u32, BigRational)> = rows[s].iter().map(|(&t, c)| (t, c.clone())).collect();
        let b_s = b[s].clone();
        let predecessors = std::mem::take(&mut preds[s]);
        for &p in &predecessors {
            let a = rows[p as usize].remove(&(s as u32)).expect("a predecessor has the entry");
            for (t, c) in &row_s {
                *rows[p as usize].entry(*t).or_insert_with(BigRational::zero) += &a * c;
                if *t != p {
                    preds[*t as usize].insert(p);
                }
            }
            b[p as usize] += &a * &b_s;
        }
        for (t, _) in &row_s {
            preds[*t as usize].remove(&(s as u32));
        }
        // Costs changed: the predecessors' rows and the successors' predecessors.
        for &p in &predecessors {
            heap.push(Reverse((cost(&rows, &preds, p as usize), p)));
        }
        for (t, _) in &row_s {
            heap.push(Reverse((cost(&rows, &preds, *t as usize), *t)));
        }
    }
    let mut x = vec![BigRational::zero(); n];
    for &s in order.iter().rev() {
        let mut v = b[s as usize].clone();
        for (&t, c) in &rows[s as usize] {
            v += c * &x[t as usize];
        }
        x[s as usize] = v;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn fractions_recover_the_decimals_and_ratios_meant() {
        assert_eq!(fraction(0.1), q(1, 10));
        assert_eq!(fraction(0.7), q(7, 10));
        assert_eq!(fraction(1.0 / 3.0), q(1, 3));
        assert_eq!(fraction(0.3 * 0.7), q(21, 100));
        assert_eq!(fraction(1.0), q(1, 1));
        assert_eq!(fraction(0.0), q(0, 1));
        assert_eq!(fraction(1.0 / 1024.0), q(1, 1024));
    }

    #[test]
    fn elimination_solves_a_cyclic_system() {
        // x0 = 1/2 x1 + 1/4, x1 = 1/3 x0 + 1/3 x1 + 1/6: x0 = x1 = 1/2.
        let mut r0 = FxHashMap::default();
        r0.insert(1, q(1, 2));
        let mut r1 = FxHashMap::default();
        r1.insert(0, q(1, 3));
        r1.insert(1, q(1, 3));
        let x = solve(vec![r0, r1], vec![q(1, 4), q(1, 6)]);
        assert_eq!(&x[0], &(q(1, 2) * &x[1] + q(1, 4)));
        assert_eq!(&x[1], &(q(1, 3) * &x[0] + q(1, 3) * &x[1] + q(1, 6)));
        assert_eq!(x, vec![q(1, 2), q(1, 2)]);
    }
}
