//! Probabilistic model checking: PCTL on DTMCs and MDPs, CSL on CTMCs, with rewards.
//!
//! [`check`] answers one parsed [`Property`] ([`property::parse`], PRISM syntax) with
//! the value of every state, as a lower and an upper bound:
//!
//! | property | DTMC / MDP | CTMC |
//! |---|---|---|
//! | `P [F φ]`, `P [φ U ψ]` | precomputation ([`crate::precompute`]), then `reach` | on the embedded DTMC |
//! | `P [X φ]`, `P [F<=k φ]`, `P [φ U<=k ψ]` | k sweeps (`bounded`) | uniformisation (`ctmc`) |
//! | `P [φ U[t1,t2] ψ]` | — | uniformisation, twice |
//! | `R [F φ]`, `T [F φ]` | `reward` | on the embedded DTMC |
//! | `R [C<=k]`, `R [I=k]` | k sweeps | uniformisation |
//! | `S [φ]`, `R [S]` | — | bottom SCCs (`ctmc`) |
//!
//! With `--exact` ([`exact`]), `P` properties of DTMCs and MDPs are answered as
//! fractions. By default ([`Method::Sound`]) every unbounded value comes with guaranteed bounds
//! (interval iteration for probabilities, with maximal end components collapsed for
//! `Pmax`; optimistic value iteration for rewards; see [`solve`]), stopped when the
//! bounds are within twice the precision, so that their midpoint is within the
//! precision of the exact value (floating-point rounding aside). Bounded properties
//! take a fixed number of steps: their bounds are equal, or, for uniformisation, the
//! truncation error of the Poisson weights. Values of `Pmin`/`Rmin` etc. are over all
//! schedulers; an `R [F φ]` is infinite where φ is missed with positive probability
//! (under some scheduler for `Rmax`, under all for `Rmin`), as in PRISM.

mod bounded;
mod cores;
mod ctmc;
pub mod engine;
pub mod exact;
mod exact_ctmc;
mod exact_lra;
mod exact_reward;
mod lra;
mod policy;
pub mod property;
mod reach;
mod reward;
pub mod solve;
mod steady;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

pub use engine::{Cores, Engine};
use engine::{Sweeps, Timed};
pub use exact::{check_exact, Exact};
pub use property::{parse, Opt, ParseError, Property, Query};
use property::{Num, StateFormula};
use solve::System;

use crate::{ModelType, Predecessors, SparseModel};

/// How unbounded properties are solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Sound bounds: interval iteration (probabilities) or optimistic value iteration
    /// (rewards).
    #[default]
    Sound,
    /// Jacobi value iteration with the classic (unsound) stopping rule.
    ValueIteration,
    /// Gauss-Seidel value iteration (unsound stopping rule, one core).
    GaussSeidel,
    /// Policy iteration: each policy evaluated by the sound default, improved while a
    /// choice is better by more than the precision (an unsound stopping rule).
    PolicyIteration,
}

/// The options of [`check`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Wanted distance of the reported value from the exact one (default 1e-6).
    pub precision: f64,
    /// `precision` relative to the value instead of absolute.
    pub relative: bool,
    pub method: Method,
    /// Sweeps before giving up.
    pub max_iterations: u64,
    /// Values of constants used in bounds (`F<=k`).
    pub constants: BTreeMap<String, f64>,
    /// Where the sweeps run (default: all CPU cores).
    pub engine: Arc<dyn Engine>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            precision: 1e-6,
            relative: false,
            method: Method::Sound,
            max_iterations: 50_000_000,
            constants: BTreeMap::new(),
            engine: Arc::new(Cores::default()),
        }
    }
}

/// Why a property could not be checked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error("the model has no label \"{0}\"")]
    UnknownLabel(String),
    #[error("the model has no reward structure {0}")]
    UnknownReward(String),
    #[error("the constant `{0}` has no value (give it with --const {0}=...)")]
    UnknownConstant(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("the iteration did not converge within {iterations} sweeps")]
    NotConverged { iterations: u64 },
    #[error("on the GPU: {0}")]
    Device(String),
}

/// The result of a property: per state, bounds on its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// Per state, a lower bound.
    pub lower: Vec<f64>,
    /// Per state, an upper bound (equal to `lower` where the value is exact or the
    /// method unsound).
    pub upper: Vec<f64>,
    /// What computed the values (e.g. `interval iteration`).
    pub method: &'static str,
    /// Sweeps over the model (matrix-vector products).
    pub iterations: u64,
    /// Time in the engine's sweeps, and the matrix entries they read.
    pub sweep: SweepTime,
}

/// Time spent in an [`Engine`]'s sweeps (uploads and downloads included) and the
/// matrix entries swept (an entry once per vector it is applied to).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SweepTime {
    pub seconds: f64,
    pub entries: u64,
}

impl Values {
    /// Every state's value is `value`, exactly.
    fn exact(values: Vec<f64>, method: &'static str, iterations: u64) -> Values {
        Values { lower: values.clone(), upper: values, method, iterations, sweep: SweepTime::default() }
    }

    /// The reported value of state `s`: the midpoint of its bounds.
    pub fn value(&self, s: u32) -> f64 {
        let (l, u) = (self.lower[s as usize], self.upper[s as usize]);
        if l == u {
            l
        } else {
            l + (u - l) / 2.0
        }
    }
}

/// What the checks share: the model, its predecessors (built when first needed) and
/// the options.
pub(crate) struct Context<'a> {
    pub model: &'a SparseModel,
    pub options: &'a Options,
    pred: std::sync::OnceLock<Predecessors>,
    sweep: Arc<Mutex<SweepTime>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(model: &'a SparseModel, options: &'a Options) -> Context<'a> {
        Context { model, options, pred: std::sync::OnceLock::new(), sweep: Arc::default() }
    }

    /// A context for another model (an embedded DTMC) that counts its sweep time
    /// with this one.
    pub(crate) fn derived<'b>(&self, model: &'b SparseModel) -> Context<'b>
    where
        'a: 'b,
    {
        Context { model, options: self.options, pred: std::sync::OnceLock::new(), sweep: self.sweep.clone() }
    }

    /// A context for another model with other options (the same engine's sweep time).
    pub(crate) fn derived_with<'b>(&self, model: &'b SparseModel, options: &'b Options) -> Context<'b>
    where
        'a: 'b,
    {
        Context { model, options, pred: std::sync::OnceLock::new(), sweep: self.sweep.clone() }
    }

    /// Opens `sys` on the options' engine, its time counted in [`Values::sweep`].
    pub(crate) fn open<'s>(&'s self, sys: &'s System) -> Result<Box<dyn Sweeps + 's>, CheckError> {
        let start = std::time::Instant::now();
        let inner = self.options.engine.open(sys)?;
        self.sweep.lock().expect("not poisoned").seconds += start.elapsed().as_secs_f64();
        Ok(Box::new(Timed { inner, total: &self.sweep, entries: sys.columns.len() as u64 }))
    }

    pub(crate) fn pred(&self) -> &Predecessors {
        self.pred.get_or_init(|| Predecessors::new(self.model))
    }

    /// The states of a state formula.
    pub(crate) fn states(&self, f: &StateFormula) -> Result<Vec<bool>, CheckError> {
        let n = self.model.states();
        Ok(match f {
            StateFormula::True => vec![true; n],
            StateFormula::False => vec![false; n],
            StateFormula::Label(l) if l == "init" => self.model.labelling.mask("init", n).unwrap_or_else(|| {
                let mut m = vec![false; n];
                self.model.initial.iter().for_each(|&s| m[s as usize] = true);
                m
            }),
            StateFormula::Label(l) => {
                self.model.labelling.mask(l, n).ok_or_else(|| CheckError::UnknownLabel(l.clone()))?
            }
            StateFormula::Not(a) => self.states(a)?.into_iter().map(|b| !b).collect(),
            StateFormula::And(a, b) => self.states(a)?.into_iter().zip(self.states(b)?).map(|(x, y)| x && y).collect(),
            StateFormula::Or(a, b) => self.states(a)?.into_iter().zip(self.states(b)?).map(|(x, y)| x || y).collect(),
        })
    }

    /// The value of a bound.
    pub(crate) fn number(&self, n: &Num) -> Result<f64, CheckError> {
        match n {
            Num::Lit(v) => Ok(*v),
            Num::Const(c) => {
                self.options.constants.get(c).copied().ok_or_else(|| CheckError::UnknownConstant(c.clone()))
            }
        }
    }

    /// A step bound: a whole number of steps.
    pub(crate) fn steps(&self, n: &Num, strict: bool) -> Result<u64, CheckError> {
        let v = self.number(n)?;
        if v.fract() != 0.0 || !(0.0..=1e12).contains(&v) {
            return Err(CheckError::Unsupported(format!(
                "a step bound of a discrete-time model must be a whole number, not {v}"
            )));
        }
        let k = v as u64;
        if strict {
            return k.checked_sub(1).ok_or_else(|| CheckError::Unsupported("the step bound `<0` is empty".into()));
        }
        Ok(k)
    }

    /// The optimisation direction: MDPs need one, for DTMCs and CTMCs it does not
    /// matter (one choice per state).
    pub(crate) fn opt(&self, opt: Option<Opt>, what: &str) -> Result<Opt, CheckError> {
        match (self.model.model_type, opt) {
            (ModelType::Mdp, None) => Err(CheckError::Unsupported(format!(
                "an MDP has no single {what}: ask for its minimum or maximum ({what}min=? or {what}max=?)"
            ))),
            (_, Some(o)) => Ok(o),
            (_, None) => Ok(Opt::Max),
        }
    }
}

/// Checks `property` on `model`: the value of every state.
pub fn check(model: &SparseModel, property: &Property, options: &Options) -> Result<Values, CheckError> {
    let cx = Context::new(model, options);
    let mut values = answer(&cx, property)?;
    values.sweep = *cx.sweep.lock().expect("not poisoned");
    Ok(values)
}

fn answer(cx: &Context, property: &Property) -> Result<Values, CheckError> {
    let (model, options) = (cx.model, cx.options);
    if !(options.precision > 0.0 && options.precision.is_finite()) {
        return Err(CheckError::Unsupported(format!("the precision must be positive, not {}", options.precision)));
    }
    // A DTMC's long-run averages are a CTMC's of rate-1 exits (`π P = π`).
    let steady = matches!(property.query, Query::Steady(_) | Query::Reward { path: property::RewardPath::Steady, .. });
    if model.model_type == ModelType::Ctmc || (steady && model.model_type == ModelType::Dtmc) {
        return ctmc::check(cx, &property.query);
    }
    match &property.query {
        Query::Prob { opt, path } => {
            let opt = cx.opt(*opt, "P")?;
            match path {
                property::PathFormula::Next(phi) => bounded::next(cx, &cx.states(phi)?, opt),
                property::PathFormula::Until { left, right, bound } => {
                    let (left, right) = (cx.states(left)?, cx.states(right)?);
                    match bound {
                        property::Bound::None => reach::until(cx, &left, &right, opt),
                        property::Bound::Upper { t, strict } => {
                            bounded::until(cx, &left, &right, cx.steps(t, *strict)?, opt)
                        }
                        property::Bound::Interval(..) => Err(CheckError::Unsupported(
                            "interval bounds `U[k1,k2]` are supported for CTMCs only".into(),
                        )),
                    }
                }
            }
        }
        Query::Reward { reward, opt, path } => {
            let opt = cx.opt(*opt, "R")?;
            let rewards = reward::row_rewards(model, reward.as_deref())?;
            match path {
                property::RewardPath::Reach(goal) => reward::reach(cx, &rewards, &cx.states(goal)?, opt),
                property::RewardPath::Cumulative(k) => bounded::cumulative(cx, &rewards, cx.steps(k, false)?, opt),
                property::RewardPath::Instant(k) => {
                    let state = reward::state_rewards(model, reward.as_deref())?;
                    bounded::instant(cx, &state, cx.steps(k, false)?, opt)
                }
                property::RewardPath::Steady => lra::long_run(cx, &rewards, opt),
            }
        }
        Query::Time { opt, goal } => {
            let opt = cx.opt(*opt, "T")?;
            let ones = vec![1.0; model.choices() as usize];
            reward::reach(cx, &ones, &cx.states(goal)?, opt)
        }
        Query::Steady(_) => Err(CheckError::Unsupported(
            "S=? is supported for DTMCs and CTMCs; for an MDP ask for a long-run average reward, \
             Rmin=? [S] or Rmax=? [S]"
                .into(),
        )),
    }
}
