//! Exact long-run average rewards of MDPs (`Rmin=? [S]`, `Rmax=? [S]` with `--exact`).
//!
//! The same two steps as the floating-point [`super::lra`], in rationals:
//!
//! 1. **The optimal gain of each MEC**, by policy iteration on its inside choices. A
//!    policy's chain may have several bottom SCCs; each one's gain comes from renewal
//!    (expected reward over expected time between visits of one of its states); the
//!    best one, `C`, is kept and every other state is routed towards it (a choice with
//!    a successor one step closer), which makes the chain unichain with `C`'s gain `g`.
//!    Its bias `h` (`h = r - g + P h`, `h = 0` at a state of `C`) solves exactly. If no
//!    inside choice has `r + P h - h` better than `g` in any state, `g` is optimal:
//!    Odoni's bound `max (r + P h - h) ≥ g*` over all choices holds for every `h` in a
//!    communicating MDP, and the policy reaches `g`. Otherwise the better choices are
//!    taken and the new policy evaluated; its gain is at least `g`.
//! 2. **The best final MEC**: the lottery model of [`super::lra`] with exact odds, and
//!    `Pmax [F win]` by exact policy iteration ([`super::exact::until`]).

use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

use super::exact::{self, better, entries, expectation, solve_unknowns, Exact};
use super::property::Opt;
use super::{CheckError, Context};
use crate::mec::{bottom_sccs, maximal_end_components};
use crate::{ModelType, SparseModel};

/// Policy improvements per MEC at most (each one improves the gain or the bias, so
/// this only guards against a bug).
const MAX_IMPROVEMENTS: u64 = 100_000;

/// `R{..}min=? [S]` / `Rmax=? [S]` of an MDP, exactly: `probs` the model's entries and
/// `rewards` its row rewards, as fractions.
pub(crate) fn long_run(
    cx: &Context,
    probs: &[BigRational],
    rewards: &[BigRational],
    opt: Opt,
) -> Result<Exact, CheckError> {
    let model = cx.model;
    if let Some(r) = rewards.iter().find(|r| r.is_negative()) {
        return Err(CheckError::Unsupported(format!("long-run averages need rewards of at least 0, not {r}")));
    }
    let n = model.states();
    let mecs = maximal_end_components(model);
    let mut gains = Vec::with_capacity(mecs.count());
    let mut improvements = 0;
    for k in 0..mecs.count() {
        let mec = Mec::new(model, probs, rewards, mecs.states(k), |r| mecs.stays_inside(r));
        let (g, steps) = mec.optimal_gain(opt)?;
        gains.push(g);
        improvements += steps;
    }
    let top = gains.iter().max().cloned().unwrap_or_else(BigRational::zero);
    if top.is_zero() {
        return Ok(Exact::new(vec![BigRational::zero(); n], "MEC gains by policy iteration, exact", improvements));
    }
    // The lottery model: states `n` (win) and `n + 1` (lose) absorbing.
    let (win, lose) = (n as u32, n as u32 + 1);
    let mut aug = SparseModel::new(ModelType::Mdp);
    let mut aug_probs = Vec::with_capacity(probs.len() + 2 * n + 2);
    let mut push = |aug: &mut SparseModel, t: u32, p: BigRational| {
        aug.push_entry(t, num_traits::ToPrimitive::to_f64(&p).unwrap_or(0.0));
        aug_probs.push(p);
    };
    for s in 0..n as u32 {
        for r in model.rows(s) {
            aug.push_row(None);
            for (t, p) in entries(model, probs, r) {
                push(&mut aug, t, p.clone());
            }
        }
        if let Some(k) = mecs.of(s) {
            let odds = match opt {
                Opt::Max => &gains[k] / &top,
                Opt::Min => (&top - &gains[k]) / &top,
            };
            aug.push_row(None);
            if !odds.is_zero() {
                push(&mut aug, win, odds.clone());
            }
            if !odds.is_one() {
                push(&mut aug, lose, BigRational::one() - odds);
            }
        }
        aug.end_state();
    }
    for sink in [win, lose] {
        aug.push_row(None);
        push(&mut aug, sink, BigRational::one());
        aug.end_state();
    }
    aug.initial = model.initial.clone();
    let left = vec![true; n + 2];
    let mut right = vec![false; n + 2];
    right[win as usize] = true;
    let p = exact::until(&Context::new(&aug, cx.options), &aug_probs, &left, &right, Opt::Max)?;
    let values = p.values[..n]
        .iter()
        .map(|x| match opt {
            Opt::Max => &top * x,
            Opt::Min => &top - &top * x,
        })
        .collect();
    Ok(Exact::new(values, "MEC gains by policy iteration, exact", improvements + p.iterations))
}

/// One MEC restricted to its inside choices, in local numbering.
struct Mec {
    /// The inside choices as an MDP over the MEC's states.
    model: SparseModel,
    probs: Vec<BigRational>,
    rewards: Vec<BigRational>,
}

impl Mec {
    fn new(
        model: &SparseModel,
        probs: &[BigRational],
        rewards: &[BigRational],
        states: &[u32],
        inside: impl Fn(u64) -> bool,
    ) -> Mec {
        let local = |t: u32| states.binary_search(&t).expect("an inside choice stays in its MEC") as u32;
        let mut m = SparseModel::new(ModelType::Mdp);
        let (mut p, mut r) = (Vec::new(), Vec::new());
        for &s in states {
            for row in model.rows(s).filter(|&row| inside(row)) {
                m.push_row(None);
                r.push(rewards[row as usize].clone());
                for (t, x) in entries(model, probs, row) {
                    m.push_entry(local(t), num_traits::ToPrimitive::to_f64(x).unwrap_or(0.0));
                    p.push(x.clone());
                }
            }
            m.end_state();
        }
        Mec { model: m, probs: p, rewards: r }
    }

    /// The optimal gain and the policy evaluations it took.
    fn optimal_gain(&self, opt: Opt) -> Result<(BigRational, u64), CheckError> {
        let n = self.model.states();
        let mut policy: Vec<u64> = (0..n as u32).map(|s| self.model.rows(s).start).collect();
        for evaluations in 1..=MAX_IMPROVEMENTS {
            let (g, best) = self.best_bottom_scc(&policy, opt);
            self.route_towards(&mut policy, &best);
            let pivot = best[0];
            let unknowns: Vec<u32> = (0..n as u32).filter(|&s| s != pivot).collect();
            let mut h = vec![BigRational::zero(); n];
            solve_unknowns(
                &self.model,
                &self.probs,
                &unknowns,
                |s| policy[s as usize],
                |r| &self.rewards[r as usize] - &g,
                &mut h,
            );
            let mut improved = false;
            for s in 0..n as u32 {
                let mut value = g.clone();
                for row in self.model.rows(s) {
                    let q =
                        &self.rewards[row as usize] + expectation(&self.model, &self.probs, &h, row) - &h[s as usize];
                    if better(&q, &value, opt) {
                        value = q;
                        policy[s as usize] = row;
                        improved = true;
                    }
                }
            }
            if !improved {
                return Ok((g, evaluations));
            }
        }
        Err(CheckError::NotConverged { iterations: MAX_IMPROVEMENTS })
    }

    /// The gain of the best bottom SCC of the policy's chain, and its states.
    fn best_bottom_scc(&self, policy: &[u64], opt: Opt) -> (BigRational, Vec<u32>) {
        let mut chain = SparseModel::new(ModelType::Dtmc);
        let mut probs = Vec::new();
        for &row in policy {
            chain.push_row(None);
            for (t, p) in entries(&self.model, &self.probs, row) {
                chain.push_entry(t, num_traits::ToPrimitive::to_f64(p).unwrap_or(0.0));
                probs.push(p.clone());
            }
            chain.end_state();
        }
        let reward = |r: u64| self.rewards[policy[r as usize] as usize].clone();
        let bsccs = bottom_sccs(&chain).expect("a policy's chain has one row per state");
        let mut best: Option<(BigRational, Vec<u32>)> = None;
        for states in bsccs.iter() {
            let g = renewal_gain(&chain, &probs, states, &reward);
            if best.as_ref().is_none_or(|(b, _)| better(&g, b, opt)) {
                best = Some((g, states.to_vec()));
            }
        }
        best.expect("a finite chain has a bottom SCC")
    }

    /// Keeps the choices of the states whose chain reaches `target` and gives every
    /// other state a choice with a successor closer to `target` (an inside choice of an
    /// end component always exists): the chain then reaches `target` from everywhere,
    /// so `target` is its only bottom SCC.
    fn route_towards(&self, policy: &mut [u64], target: &[u32]) {
        let n = self.model.states();
        let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
        for s in 0..n as u32 {
            for (t, _) in self.model.row(policy[s as usize]) {
                back[t as usize].push(s);
            }
        }
        let mut reached = vec![false; n];
        let mut stack = target.to_vec();
        target.iter().for_each(|&s| reached[s as usize] = true);
        while let Some(t) = stack.pop() {
            for &s in &back[t as usize] {
                if !reached[s as usize] {
                    reached[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        // Each round gives the states next to those reached in earlier rounds a choice
        // into them.
        loop {
            let mut next = Vec::new();
            for s in (0..n as u32).filter(|&s| !reached[s as usize]) {
                let closer = self.model.rows(s).find(|&r| self.model.row(r).any(|(t, _)| reached[t as usize]));
                if let Some(r) = closer {
                    policy[s as usize] = r;
                    next.push(s);
                }
            }
            if next.is_empty() {
                break;
            }
            next.iter().for_each(|&s| reached[s as usize] = true);
        }
    }
}

/// The long-run average reward of a bottom SCC of `chain` (one row per state):
/// `(r(p) + Σ P(p, t) x(t)) / (1 + Σ P(p, t) y(t))` for one of its states `p`, `x` the
/// expected reward and `y` the expected time until `p` is reached.
fn renewal_gain(
    chain: &SparseModel,
    probs: &[BigRational],
    states: &[u32],
    reward: &impl Fn(u64) -> BigRational,
) -> BigRational {
    let pivot = states[0];
    let others: Vec<u32> = states[1..].to_vec();
    let mut x = vec![BigRational::zero(); chain.states()];
    let mut y = x.clone();
    solve_unknowns(chain, probs, &others, |s| s as u64, reward, &mut x);
    solve_unknowns(chain, probs, &others, |s| s as u64, |_| BigRational::one(), &mut y);
    let row = pivot as u64;
    (reward(row) + expectation(chain, probs, &x, row)) / (BigRational::one() + expectation(chain, probs, &y, row))
}
