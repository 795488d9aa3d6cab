//! The successor function of a [`Program`]: which steps are enabled in a state and the
//! states they lead to, with the reference semantics of DVE:
//!
//! - asynchronous interleaving of transition groups (local steps, rendezvous pairs,
//!   buffered sends and receives);
//! - the committed-state rule: while some process is in a committed state only groups
//!   whose participants all leave committed states may run;
//! - synchronous systems, where every process takes one local step per step (effects
//!   run in process order, each seeing the previous).
//!
//! The property process is not part of the system: [`warpcheck_model::Product`] runs
//! it (see [`crate::Property`]).
//!
//! A step whose guard or effect raises an evaluation error is reported as such (an
//! edge to the error state), never silently dropped.

use crate::compiled::{compile_expr, compile_stmt, CompiledExpr, CompiledStmt};
use crate::ir::GroupKind;
use crate::program::{Program, SyncMode};
use warpcheck_model::interface::Step;
use warpcheck_model::EvalError;

/// Receives each system step: the groups that moved and the target or the error.
type Sink<'s> = dyn FnMut(&[u32], Result<&[u32], EvalError>) + 's;

/// Generates successors of states of one model. Holds reusable buffers: make one per
/// thread.
pub struct Generator<'m> {
    model: &'m Program,
    /// Groups whose first participant leaves control state `s` of process `p`: with
    /// `l = state_base[p] + s`, they are `by_state[by_state_start[l]..by_state_start[l + 1]]`.
    state_base: Vec<u32>,
    by_state_start: Vec<u32>,
    by_state: Vec<u32>,
    temps: Vec<i32>,
    target: Vec<u32>,
    /// Per process, the local groups enabled in the current state (synchronous mode).
    choices: Vec<Vec<u32>>,
    /// Each group's guards and effect, compiled.
    compiled: Vec<(Vec<CompiledExpr>, Vec<CompiledStmt>)>,
}

impl<'m> Generator<'m> {
    pub fn new(model: &'m Program) -> Self {
        let mut state_base = Vec::new();
        let mut lists: Vec<Vec<u32>> = Vec::new();
        for p in &model.processes {
            state_base.push(lists.len() as u32);
            lists.extend(std::iter::repeat_with(Vec::new).take(p.states.len()));
        }
        for (g, group) in model.groups.iter().enumerate() {
            let first = group.participants[0];
            let from = model.processes[first.process as usize].transitions[first.transition as usize].from;
            lists[(state_base[first.process as usize] + from) as usize].push(g as u32);
        }
        let mut by_state_start = vec![0];
        let mut by_state = Vec::new();
        for list in lists {
            by_state.extend(list);
            by_state_start.push(by_state.len() as u32);
        }
        Generator {
            model,
            state_base,
            by_state_start,
            by_state,
            temps: vec![0; model.temps as usize],
            target: Vec::with_capacity(model.state_words()),
            choices: vec![Vec::new(); model.processes.len()],
            compiled: model
                .groups
                .iter()
                .map(|g| {
                    let guards = g.guards.iter().map(|e| compile_expr(e, &model.layout)).collect();
                    let effect = g.effect.iter().map(|s| compile_stmt(s, &model.layout, model.overflow)).collect();
                    (guards, effect)
                })
                .collect(),
        }
    }

    /// Calls `emit` for every step enabled in `state`, with the successor state or the
    /// evaluation error the step raised. Returns whether `state` is a deadlock: no step
    /// is enabled (a step that raises an error counts as enabled). The property
    /// process takes no part: it is an automaton for the product wrapper.
    #[inline]
    pub fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        let mut sink = |groups: &[u32], result: Result<&[u32], EvalError>| emit(Step::of(groups), result);
        !self.system_steps(state, &mut sink)
    }

    /// Feeds every step of the system proper to `sink`; returns whether there was any.
    fn system_steps(&mut self, state: &[u32], sink: &mut Sink<'_>) -> bool {
        match self.model.mode {
            SyncMode::Async => self.async_steps(state, sink),
            SyncMode::Sync => self.sync_steps(state, sink),
        }
    }

    fn any_committed(&self, state: &[u32]) -> bool {
        self.model.system_processes().any(|(_, p)| {
            let s = self.model.layout.slot(p.control).get(state);
            p.committed[s as usize]
        })
    }

    /// The groups whose first participant is process `p` leaving its current state.
    #[inline]
    fn groups_leaving(&self, p: u32, state: &[u32]) -> std::ops::Range<usize> {
        let process = &self.model.processes[p as usize];
        let at = self.model.layout.slot(process.control).get(state) as u32;
        let list = (self.state_base[p as usize] + at) as usize;
        self.by_state_start[list] as usize..self.by_state_start[list + 1] as usize
    }

    /// Whether group `g`, whose first participant is known to be in its source state,
    /// may fire in `state`: the other participants' source states, then the guards.
    #[inline]
    fn enabled(&mut self, g: u32, state: &[u32]) -> Result<bool, EvalError> {
        let group = &self.model.groups[g as usize];
        let layout = &self.model.layout;
        if !group.source[1..].iter().all(|&(slot, v)| layout.slot(slot).get(state) == v) {
            return Ok(false);
        }
        for guard in &self.compiled[g as usize].0 {
            if guard.eval(state, &self.temps)? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs the effects of `groups` in order on a copy of `state` and hands the result
    /// to `sink`.
    fn fire(&mut self, groups: &[u32], state: &[u32], sink: &mut Sink<'_>) {
        let mut target = std::mem::take(&mut self.target);
        target.clear();
        target.extend_from_slice(state);
        let mut result = Ok(());
        'groups: for &g in groups {
            for stmt in &self.compiled[g as usize].1 {
                result = stmt.exec(&mut target, &mut self.temps);
                if result.is_err() {
                    break 'groups;
                }
            }
        }
        sink(groups, result.map(|_| &target[..]));
        self.target = target;
    }

    fn async_steps(&mut self, state: &[u32], sink: &mut Sink<'_>) -> bool {
        let model = self.model;
        let committed = self.any_committed(state);
        let mut any = false;
        for (p, _) in model.system_processes() {
            for k in self.groups_leaving(p, state) {
                let g = self.by_state[k];
                let group = &model.groups[g as usize];
                if committed && !group.committed {
                    continue;
                }
                match self.enabled(g, state) {
                    Ok(false) => continue,
                    Ok(true) => self.fire(&[g], state, sink),
                    Err(e) => sink(&[g], Err(e)),
                }
                any = true;
            }
        }
        any
    }

    fn sync_steps(&mut self, state: &[u32], sink: &mut Sink<'_>) -> bool {
        let model = self.model;
        let mut choices = std::mem::take(&mut self.choices);
        let mut procs = Vec::new();
        let mut any = false;
        for (p, _) in model.system_processes() {
            let list = &mut choices[p as usize];
            list.clear();
            for k in self.groups_leaving(p, state) {
                let g = self.by_state[k];
                debug_assert_eq!(model.groups[g as usize].kind, GroupKind::Local);
                match self.enabled(g, state) {
                    Ok(false) => {}
                    Ok(true) => list.push(g),
                    Err(e) => {
                        sink(&[g], Err(e));
                        any = true;
                    }
                }
            }
            if list.is_empty() {
                // Some process cannot move: the whole system is stuck (errors aside).
                self.choices = choices;
                return any;
            }
            procs.push(p as usize);
        }
        // Enumerate every combination of one enabled group per process (odometer).
        let mut pick = vec![0usize; procs.len()];
        let mut groups = Vec::with_capacity(procs.len());
        loop {
            groups.clear();
            groups.extend(procs.iter().zip(&pick).map(|(&p, &k)| choices[p][k]));
            self.fire(&groups, state, sink);
            any = true;
            let mut i = procs.len();
            loop {
                if i == 0 {
                    self.choices = choices;
                    return any;
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
