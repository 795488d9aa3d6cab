//! The successor function of a [`Model`]: which steps are enabled in a state and the
//! states they lead to, with the reference semantics of DVE:
//!
//! - asynchronous interleaving of transition groups (local steps, rendezvous pairs,
//!   buffered sends and receives);
//! - the committed-state rule: while some process is in a committed state only groups
//!   whose participants all leave committed states may run;
//! - synchronous systems, where every process takes one local step per step (effects
//!   run in process order, each seeing the previous);
//! - the synchronous product with a property automaton, whose guards are evaluated on
//!   the source state, with the automaton moving alone (the system stutters) when the
//!   system has no step.
//!
//! A step whose guard or effect raises an evaluation error is reported as such (an
//! edge to the error state), never silently dropped.

use crate::eval::{EvalError, Evaluator};
use crate::ir::{GroupKind, Stmt};
use crate::model::{Model, SyncMode};

/// The step that produced a successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<'a> {
    /// The groups that moved: one in an asynchronous system, one per process in a
    /// synchronous one, none when only the property automaton moved.
    pub groups: &'a [u32],
    /// The property automaton's edge, in a model with a property.
    pub property: Option<u32>,
}

/// One system step found in a state, before the product with the property.
struct SystemStep {
    groups: std::ops::Range<usize>,
    error: Option<EvalError>,
}

/// Generates successors of states of one model. Holds reusable buffers: make one per
/// thread.
pub struct Generator<'m> {
    model: &'m Model,
    /// For each process and control state, the groups whose first participant is that
    /// process leaving that state.
    by_state: Vec<Vec<Vec<u32>>>,
    temps: Vec<i32>,
    /// Successor states of the system steps, `words` each.
    targets: Vec<u32>,
    steps: Vec<SystemStep>,
    step_groups: Vec<u32>,
    product: Vec<u32>,
    enabled_edges: Vec<u32>,
    /// Per process, the local groups enabled in the current state (synchronous mode).
    choices: Vec<Vec<u32>>,
}

impl<'m> Generator<'m> {
    pub fn new(model: &'m Model) -> Self {
        let mut by_state: Vec<Vec<Vec<u32>>> = model
            .processes
            .iter()
            .map(|p| vec![Vec::new(); p.states.len()])
            .collect();
        for (g, group) in model.groups.iter().enumerate() {
            let first = group.participants[0];
            let from = model.processes[first.process as usize].transitions
                [first.transition as usize]
                .from;
            by_state[first.process as usize][from as usize].push(g as u32);
        }
        Generator {
            model,
            by_state,
            temps: vec![0; model.temps as usize],
            targets: Vec::new(),
            steps: Vec::new(),
            step_groups: Vec::new(),
            product: vec![0; model.state_words()],
            enabled_edges: Vec::new(),
            choices: vec![Vec::new(); model.processes.len()],
        }
    }

    /// The model this generator runs.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Calls `emit` for every step enabled in `state`, with the successor state or the
    /// evaluation error the step raised. Returns whether `state` is a deadlock: no step
    /// of the system and none of the property automaton is enabled (a step that raises
    /// an error counts as enabled).
    pub fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        self.targets.clear();
        self.steps.clear();
        self.step_groups.clear();
        match self.model.mode {
            SyncMode::Async => self.async_steps(state),
            SyncMode::Sync => self.sync_steps(state),
        }
        let words = self.model.state_words();
        let Some(property) = &self.model.property else {
            for (i, step) in self.steps.iter().enumerate() {
                let groups = &self.step_groups[step.groups.clone()];
                let result = match step.error {
                    Some(e) => Err(e),
                    None => Ok(&self.targets[i * words..(i + 1) * words]),
                };
                emit(Step { groups, property: None }, result);
            }
            return self.steps.is_empty();
        };

        // The product with the property automaton: its guards read the source state.
        let control = self.model.layout.slot(self.model.processes[property.process as usize].control);
        let at = control.get(state);
        self.enabled_edges.clear();
        let ev = Evaluator { layout: &self.model.layout, temps: &mut self.temps };
        let mut property_moves = false;
        for (e, edge) in property.edges.iter().enumerate() {
            if edge.from != at {
                continue;
            }
            match edge.guard.as_ref().map_or(Ok(true), |g| ev.holds(g, state)) {
                Ok(true) => self.enabled_edges.push(e as u32),
                Ok(false) => {}
                Err(err) => {
                    property_moves = true;
                    emit(Step { groups: &[], property: Some(e as u32) }, Err(err));
                }
            }
        }
        property_moves |= !self.enabled_edges.is_empty();
        if self.steps.is_empty() {
            // The system cannot move: the automaton moves alone.
            for &e in &self.enabled_edges {
                self.product.copy_from_slice(state);
                control.set(&mut self.product, property.edges[e as usize].to);
                emit(Step { groups: &[], property: Some(e) }, Ok(&self.product));
            }
            return !property_moves;
        }
        for (i, step) in self.steps.iter().enumerate() {
            let groups = &self.step_groups[step.groups.clone()];
            if let Some(err) = step.error {
                emit(Step { groups, property: None }, Err(err));
                continue;
            }
            for &e in &self.enabled_edges {
                self.product.copy_from_slice(&self.targets[i * words..(i + 1) * words]);
                control.set(&mut self.product, property.edges[e as usize].to);
                emit(Step { groups, property: Some(e) }, Ok(&self.product));
            }
        }
        false
    }

    fn any_committed(&self, state: &[u32]) -> bool {
        self.model.system_processes().any(|(_, p)| {
            let s = self.model.layout.slot(p.control).get(state);
            p.committed[s as usize]
        })
    }

    /// Whether group `g` may fire in `state`: its source states, then its guards.
    fn enabled(&mut self, g: u32, state: &[u32]) -> Result<bool, EvalError> {
        let group = &self.model.groups[g as usize];
        let layout = &self.model.layout;
        if !group.source.iter().all(|&(slot, v)| layout.slot(slot).get(state) == v) {
            return Ok(false);
        }
        let ev = Evaluator { layout, temps: &mut self.temps };
        for guard in &group.guards {
            if !ev.holds(guard, state)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Records a system step: runs `effects` in order on a copy of `state`.
    fn push_step<'s>(&mut self, groups: &[u32], state: &[u32], effects: impl Iterator<Item = &'s [Stmt]>) {
        let start = self.targets.len();
        self.targets.extend_from_slice(state);
        let mut ev = Evaluator { layout: &self.model.layout, temps: &mut self.temps };
        let target = &mut self.targets[start..];
        let mut error = None;
        for effect in effects {
            if let Err(e) = ev.exec_all(effect, target) {
                error = Some(e);
                break;
            }
        }
        self.record(groups, error);
    }

    fn record(&mut self, groups: &[u32], error: Option<EvalError>) {
        if error.is_some() {
            // Keep `targets` aligned with `steps`: an errored step has a dummy target.
            let words = self.model.state_words();
            self.targets.resize(self.steps.len() * words + words, 0);
        }
        let first = self.step_groups.len();
        self.step_groups.extend_from_slice(groups);
        self.steps.push(SystemStep { groups: first..self.step_groups.len(), error });
    }

    fn async_steps(&mut self, state: &[u32]) {
        let model = self.model;
        let committed = self.any_committed(state);
        for (p, process) in model.system_processes() {
            let at = model.layout.slot(process.control).get(state) as usize;
            for k in 0..self.by_state[p as usize][at].len() {
                let g = self.by_state[p as usize][at][k];
                let group = &model.groups[g as usize];
                if committed && !group.committed {
                    continue;
                }
                match self.enabled(g, state) {
                    Ok(false) => {}
                    Ok(true) => self.push_step(&[g], state, std::iter::once(&group.effect[..])),
                    Err(e) => self.record(&[g], Some(e)),
                }
            }
        }
    }

    fn sync_steps(&mut self, state: &[u32]) {
        let model = self.model;
        let mut choices = std::mem::take(&mut self.choices);
        let mut procs = Vec::new();
        for (p, process) in model.system_processes() {
            let at = model.layout.slot(process.control).get(state) as usize;
            let list = &mut choices[p as usize];
            list.clear();
            for k in 0..self.by_state[p as usize][at].len() {
                let g = self.by_state[p as usize][at][k];
                debug_assert_eq!(model.groups[g as usize].kind, GroupKind::Local);
                match self.enabled(g, state) {
                    Ok(false) => {}
                    Ok(true) => list.push(g),
                    Err(e) => self.record(&[g], Some(e)),
                }
            }
            if list.is_empty() {
                // Some process cannot move: the whole system is stuck (errors aside).
                self.choices = choices;
                return;
            }
            procs.push(p as usize);
        }
        // Enumerate every combination of one enabled group per process (odometer).
        let mut pick = vec![0usize; procs.len()];
        let mut groups = Vec::with_capacity(procs.len());
        loop {
            groups.clear();
            groups.extend(procs.iter().zip(&pick).map(|(&p, &k)| choices[p][k]));
            let effects: Vec<&[Stmt]> = groups.iter().map(|&g| &model.groups[g as usize].effect[..]).collect();
            self.push_step(&groups, state, effects.into_iter());
            let mut i = procs.len();
            loop {
                if i == 0 {
                    self.choices = choices;
                    return;
                }
                i -= 1;
                pick[i] += 1;
                if pick[i] < choices[procs[i]].len() {
                    break;
                }
                pick[i] = 0;
            }
        }
    }
}
