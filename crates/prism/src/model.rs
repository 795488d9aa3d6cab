//! A checked PRISM program behind the waist: [`PrismModel`] implements
//! [`Model`] and [`Describe`] (and the builder's [`Annotations`]: rewards and
//! valuations), with [`PrismSuccessors`] as its successor worker.
//!
//! The choices of a state, in Storm's order (`PrismNextStateGenerator`): first the
//! commands that do not synchronise, module by module and command by command
//! (unlabelled ones and those whose action only one module has), then for each action
//! shared by several modules (in order of first appearance) every combination of one
//! enabled command per module of its alphabet, the last module's command varying
//! fastest. A synchronised choice's branches are the combinations of the commands'
//! branches (the first module's varying slowest); its weight is the product of their
//! probabilities (rates in a CTMC) and its update the union of their assignments, all
//! evaluated on the source state. Branches of weight 0 are skipped, as Storm does.
//! Each branch is one emitted successor whose `Step::groups` are the choice's command
//! ids (the waist's choice convention), `Step::weight` its probability or rate.

use warpcheck_markov::{Annotations, BuildError, BuildOptions, ModelType, RewardInfo, SparseModel};
use warpcheck_model::{Describe, EvalError, Label, LabelId, LabelKind, Model, Step, Successors};

use crate::diagnostic::{Diagnostic, Span};
use crate::eval::VarSlot;
use crate::program::{Command, Program};

/// The most valuations an `init ... endinit` block may range over.
pub const MAX_INIT_CANDIDATES: u64 = 1 << 24;

/// A PRISM model: the checked program, its initial states and its choice structure.
#[derive(Clone, Debug)]
pub struct PrismModel {
    /// The checked program.
    pub program: Program,
    initial: Vec<Vec<u32>>,
    /// Commands that never synchronise, in module and command order.
    alone: Vec<u32>,
    /// Actions of several modules: per module of the alphabet, its commands.
    sync: Vec<Vec<Vec<u32>>>,
}

impl PrismModel {
    /// The model of a checked program; `init_span` is where the `init ... endinit`
    /// predicate is written (for its errors).
    pub fn new(program: Program, init_span: Span) -> Result<PrismModel, Diagnostic> {
        let mut alone = Vec::new();
        let mut sync: Vec<Vec<Vec<u32>>> = Vec::new();
        let users = |a: u32| program.modules.iter().filter(|m| m.alphabet.contains(&a)).count();
        for m in &program.modules {
            for &c in &m.commands {
                match program.commands[c as usize].action {
                    Some(a) if users(a) > 1 => {}
                    _ => alone.push(c),
                }
            }
        }
        for a in 0..program.actions.len() as u32 {
            if users(a) > 1 {
                let per_module = program
                    .modules
                    .iter()
                    .filter(|m| m.alphabet.contains(&a))
                    .map(|m| {
                        m.commands.iter().copied().filter(|&c| program.commands[c as usize].action == Some(a)).collect()
                    })
                    .collect();
                sync.push(per_module);
            }
        }
        let initial = initial_states(&program, init_span)?;
        Ok(PrismModel { program, initial, alone, sync })
    }

    /// DTMC, CTMC or MDP.
    pub fn model_type(&self) -> ModelType {
        self.program.model_type
    }

    /// Builds the whole reachable Markov model (see [`warpcheck_markov::build()`]).
    pub fn build(&self, options: &BuildOptions) -> Result<SparseModel, BuildError> {
        warpcheck_markov::build(self, self.model_type(), self, options)
    }

    /// The value of variable `v` in `state`.
    pub fn value(&self, state: &[u32], v: usize) -> i64 {
        self.program.slots[v].get(state)
    }

    fn describe_value(&self, state: &[u32], v: usize) -> String {
        let var = &self.program.vars[v];
        let x = self.value(state, v);
        if var.boolean {
            format!("{} = {}", var.name, x != 0)
        } else {
            format!("{} = {x}", var.name)
        }
    }

    /// The commands that never synchronise, in Storm's order.
    pub(crate) fn alone(&self) -> &[u32] {
        &self.alone
    }

    /// Per action of several modules: per module of its alphabet, its commands.
    pub(crate) fn synchronisations(&self) -> &[Vec<Vec<u32>>] {
        &self.sync
    }

    /// An upper bound on the steps of one state, evaluation errors included: per
    /// command alone its branches (or a guard's error), per synchronisation the
    /// guards' errors and, per combination of commands, the product of their
    /// branches (or one error per module).
    pub fn successor_bound(&self) -> u64 {
        let branches = |c: u32| self.program.commands[c as usize].branches.len() as u64;
        let alone: u64 = self.alone.iter().map(|&c| 1 + branches(c)).fold(0, u64::saturating_add);
        let sync = self.sync.iter().map(|per_module| {
            let guards: u64 = per_module.iter().map(|cmds| cmds.len() as u64).sum();
            let combinations = per_module.iter().fold(1u64, |n, cmds| n.saturating_mul(cmds.len() as u64));
            let most = per_module
                .iter()
                .fold(1u64, |n, cmds| n.saturating_mul(cmds.iter().map(|&c| branches(c)).max().unwrap_or(0)));
            guards.saturating_add(combinations.saturating_mul(most.saturating_add(per_module.len() as u64)))
        });
        sync.fold(alone, u64::saturating_add)
    }

    fn command(&self, c: u32) -> Option<&Command> {
        self.program.commands.get(c as usize)
    }
}

/// The initial states: the variables' initial values, or every valuation satisfying
/// the `init ... endinit` predicate, enumerated as Storm does (integer variables
/// first, then Booleans; the first variable varies fastest).
fn initial_states(p: &Program, init_span: Span) -> Result<Vec<Vec<u32>>, Diagnostic> {
    let encode = |values: &[i64]| {
        let mut s = vec![0u32; p.layout.words()];
        for (slot, (v, x)) in p.slots.iter().zip(p.vars.iter().zip(values)) {
            slot.slot.set(&mut s, (x - v.lo) as i32);
        }
        s
    };
    let Some(init) = &p.init else {
        return Ok(vec![encode(&p.vars.iter().map(|v| v.init).collect::<Vec<_>>())]);
    };
    let order: Vec<usize> = (0..p.vars.len())
        .filter(|&v| !p.vars[v].boolean)
        .chain((0..p.vars.len()).filter(|&v| p.vars[v].boolean))
        .collect();
    let candidates = p.vars.iter().try_fold(1u64, |n, v| n.checked_mul((v.hi - v.lo + 1) as u64));
    if candidates.is_none_or(|n| n > MAX_INIT_CANDIDATES) {
        return Err(Diagnostic::new("`init ... endinit` ranges over too many valuations", init_span)
            .label(format!("the variables have more than {MAX_INIT_CANDIDATES} valuations")));
    }
    let mut values: Vec<i64> = p.vars.iter().map(|v| v.lo).collect();
    let mut out = Vec::new();
    let mut stack = Vec::new();
    loop {
        let s = encode(&values);
        match init.holds(&p.slots, &s, &mut stack) {
            Ok(true) => out.push(s),
            Ok(false) => {}
            Err(e) => {
                return Err(Diagnostic::new(format!("evaluating the initial states: {e}"), init_span).note(format!(
                    "in the valuation {}",
                    p.vars.iter().zip(&values).map(|(v, x)| format!("{}={x}", v.name)).collect::<Vec<_>>().join(", ")
                )))
            }
        }
        // The next valuation: an odometer over `order`, its first variable fastest.
        let mut moved = false;
        for &v in &order {
            if values[v] < p.vars[v].hi {
                values[v] += 1;
                moved = true;
                break;
            }
            values[v] = p.vars[v].lo;
        }
        if !moved {
            break;
        }
    }
    if out.is_empty() {
        return Err(
            Diagnostic::new("no state satisfies the `init ... endinit` predicate", init_span).label("never true")
        );
    }
    Ok(out)
}

/// The successor worker of a [`PrismModel`].
pub struct PrismSuccessors<'a> {
    model: &'a PrismModel,
    stack: Vec<u64>,
    target: Vec<u32>,
    /// Per module of a synchronisation: its enabled commands.
    enabled: Vec<Vec<u32>>,
    /// Per module: the chosen command's position in `enabled`, and its branch weights.
    chosen: Vec<usize>,
    weights: Vec<Vec<f64>>,
    branch: Vec<usize>,
    groups: Vec<u32>,
}

impl<'a> PrismSuccessors<'a> {
    fn new(model: &'a PrismModel) -> Self {
        PrismSuccessors {
            model,
            stack: Vec::new(),
            target: vec![0; model.program.layout.words()],
            enabled: Vec::new(),
            chosen: Vec::new(),
            weights: Vec::new(),
            branch: Vec::new(),
            groups: Vec::new(),
        }
    }
}

/// Applies branch `b` of command `c`, read on `source`, to `target`.
fn apply(
    p: &Program,
    c: &Command,
    b: usize,
    source: &[u32],
    target: &mut [u32],
    stack: &mut Vec<u64>,
) -> Result<(), EvalError> {
    let slots: &[VarSlot] = &p.slots;
    for (v, code) in &c.branches[b].assignments {
        let x = code.eval(slots, source, stack)? as i64;
        let var = &p.vars[*v as usize];
        if x < var.lo || x > var.hi {
            return Err(EvalError::OutOfRange { slot: *v, value: x.clamp(i32::MIN as i64, i32::MAX as i64) as i32 });
        }
        slots[*v as usize].slot.set(target, (x - var.lo) as i32);
    }
    Ok(())
}

impl Successors for PrismSuccessors<'_> {
    fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        let m = self.model;
        let p = &m.program;
        let mut emitted = false;
        fn step(groups: &[u32], weight: Option<f64>) -> Step<'_> {
            Step { groups, property: None, weight }
        }
        for &c in &m.alone {
            let cmd = &p.commands[c as usize];
            match cmd.guard.holds(&p.slots, state, &mut self.stack) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(e) => {
                    emit(step(&[c], None), Err(e));
                    emitted = true;
                    continue;
                }
            }
            for b in 0..cmd.branches.len() {
                let w = match cmd.branches[b].weight.real(&p.slots, state, &mut self.stack) {
                    Ok(w) => w,
                    Err(e) => {
                        emit(step(&[c], None), Err(e));
                        emitted = true;
                        continue;
                    }
                };
                if w == 0.0 {
                    continue;
                }
                self.target.copy_from_slice(state);
                emitted = true;
                match apply(p, cmd, b, state, &mut self.target, &mut self.stack) {
                    Ok(()) => emit(step(&[c], Some(w)), Ok(&self.target)),
                    Err(e) => emit(step(&[c], Some(w)), Err(e)),
                }
            }
        }
        for per_module in &m.sync {
            self.enabled.resize(per_module.len(), Vec::new());
            let mut all = true;
            for (i, cmds) in per_module.iter().enumerate() {
                self.enabled[i].clear();
                for &c in cmds {
                    match p.commands[c as usize].guard.holds(&p.slots, state, &mut self.stack) {
                        Ok(true) => self.enabled[i].push(c),
                        Ok(false) => {}
                        Err(e) => {
                            emit(step(&[c], None), Err(e));
                            emitted = true;
                        }
                    }
                }
                all &= !self.enabled[i].is_empty();
            }
            if !all {
                continue;
            }
            let n = per_module.len();
            self.chosen.clear();
            self.chosen.resize(n, 0);
            self.weights.resize(n, Vec::new());
            loop {
                // One combination of commands: its branch weights, then its branches.
                self.groups.clear();
                let mut failed = false;
                for i in 0..n {
                    let c = self.enabled[i][self.chosen[i]];
                    self.groups.push(c);
                    self.weights[i].clear();
                    for br in &p.commands[c as usize].branches {
                        match br.weight.real(&p.slots, state, &mut self.stack) {
                            Ok(w) => self.weights[i].push(w),
                            Err(e) => {
                                emit(step(&[c], None), Err(e));
                                emitted = true;
                                failed = true;
                                break;
                            }
                        }
                    }
                }
                if !failed {
                    self.branch.clear();
                    self.branch.resize(n, 0);
                    loop {
                        let w: f64 = (0..n).map(|i| self.weights[i][self.branch[i]]).product();
                        if w != 0.0 {
                            self.target.copy_from_slice(state);
                            emitted = true;
                            let mut result = Ok(());
                            for i in 0..n {
                                let cmd = &p.commands[self.groups[i] as usize];
                                result = apply(p, cmd, self.branch[i], state, &mut self.target, &mut self.stack);
                                if result.is_err() {
                                    break;
                                }
                            }
                            match result {
                                Ok(()) => emit(step(&self.groups, Some(w)), Ok(&self.target)),
                                Err(e) => emit(step(&self.groups, Some(w)), Err(e)),
                            }
                        }
                        if !odometer(&mut self.branch, |i| self.weights[i].len()) {
                            break;
                        }
                    }
                }
                if !odometer(&mut self.chosen, |i| self.enabled[i].len()) {
                    break;
                }
            }
        }
        !emitted
    }
}

/// Advances `digits` (the last fastest) below the bounds `len(i)`; false when it wraps.
fn odometer(digits: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for i in (0..digits.len()).rev() {
        digits[i] += 1;
        if digits[i] < len(i) {
            return true;
        }
        digits[i] = 0;
    }
    false
}

impl Describe for PrismModel {
    fn describe_step(&self, step: &Step<'_>) -> String {
        let parts: Vec<String> = step
            .groups
            .iter()
            .filter_map(|&c| self.command(c))
            .map(|c| format!("module {}, line {}: {}", self.program.modules[c.module as usize].name, c.line, c.text))
            .collect();
        if parts.is_empty() {
            "no command".to_string()
        } else {
            parts.join(" || ")
        }
    }

    fn describe_error(&self, error: &EvalError) -> String {
        match *error {
            EvalError::OutOfRange { slot, value } => match self.program.vars.get(slot as usize) {
                Some(v) if v.boolean => format!("value {value} is not a bool for variable `{}`", v.name),
                Some(v) => format!("value {value} is outside the range [{}..{}] of variable `{}`", v.lo, v.hi, v.name),
                None => error.to_string(),
            },
            _ => crate::eval::describe_error(error),
        }
    }

    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        (0..self.program.vars.len())
            .filter(|&v| self.value(before, v) != self.value(after, v))
            .map(|v| format!("{} (was {})", self.describe_value(after, v), self.describe_value(before, v)))
            .collect()
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        (0..self.program.vars.len()).map(|v| self.describe_value(state, v)).collect()
    }
}

impl Model for PrismModel {
    type Successors<'a> = PrismSuccessors<'a>;

    fn state_words(&self) -> usize {
        self.program.layout.words()
    }

    fn initial_state(&self) -> Vec<u32> {
        self.initial.first().cloned().unwrap_or_default()
    }

    fn initial_states(&self) -> Vec<Vec<u32>> {
        self.initial.clone()
    }

    fn successors(&self) -> PrismSuccessors<'_> {
        PrismSuccessors::new(self)
    }

    fn labels(&self) -> Vec<Label> {
        self.program.labels.iter().map(|(name, _)| Label { name: name.clone(), kind: LabelKind::Predicate }).collect()
    }

    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        match self.program.labels.get(label) {
            Some((_, code)) => code.holds(&self.program.slots, state, &mut Vec::new()),
            None => Ok(false),
        }
    }

    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }

    fn property(&self) -> Option<&str> {
        None
    }

    fn spare_bits(&self) -> Option<warpcheck_model::BitField> {
        self.program.layout.spare()
    }
}

impl Annotations for PrismModel {
    fn reward_structures(&self) -> Vec<RewardInfo> {
        self.program
            .rewards
            .iter()
            .map(|r| RewardInfo { name: r.name.clone(), state: !r.state.is_empty(), action: !r.action.is_empty() })
            .collect()
    }

    fn state_reward(&self, structure: usize, state: &[u32]) -> Result<f64, EvalError> {
        let mut stack = Vec::new();
        let mut sum = 0.0;
        for item in self.program.rewards.get(structure).map_or(&[][..], |r| &r.state) {
            if item.guard.holds(&self.program.slots, state, &mut stack)? {
                sum += item.value.real(&self.program.slots, state, &mut stack)?;
            }
        }
        Ok(sum)
    }

    fn choice_reward(&self, structure: usize, state: &[u32], groups: &[u32]) -> Result<f64, EvalError> {
        let action = groups.first().and_then(|&c| self.command(c)).and_then(|c| c.action);
        let mut stack = Vec::new();
        let mut sum = 0.0;
        for (a, item) in self.program.rewards.get(structure).map_or(&[][..], |r| &r.action) {
            if *a == action && item.guard.holds(&self.program.slots, state, &mut stack)? {
                sum += item.value.real(&self.program.slots, state, &mut stack)?;
            }
        }
        Ok(sum)
    }

    fn variables(&self) -> Vec<(String, bool)> {
        self.program.vars.iter().map(|v| (v.name.clone(), v.boolean)).collect()
    }

    fn valuation(&self, state: &[u32], out: &mut Vec<i64>) {
        out.extend((0..self.program.vars.len()).map(|v| self.value(state, v)));
    }
}
