//! [`Program`]: a lowered model with its names, layout, initial state, transition groups
//! and labels. This is what every engine consumes.

use crate::ir::{Assertion, Group, VarId};
use warpcheck_model::layout::{Layout, SlotId};
use warpcheck_model::Automaton;

/// How the processes of a model move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// Interleaving: one group (one process, or a communicating pair) per step.
    Async,
    /// Lock-step: every process takes one local transition in every step.
    Sync,
}

/// A named variable (scalar or array) of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    /// Owning process for a local variable.
    pub process: Option<u32>,
    /// First slot; an array occupies `len` consecutive slots.
    pub first: SlotId,
    pub len: u32,
    pub is_array: bool,
}

/// A transition of a process as written in the source, for traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    pub from: u32,
    pub to: u32,
    /// Source line (1-based), 0 if unknown.
    pub line: u32,
}

/// A process: a finite automaton over named control states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub name: String,
    /// The slot holding the current control state.
    pub control: SlotId,
    pub states: Vec<String>,
    pub accepting: Vec<bool>,
    pub committed: Vec<bool>,
    pub transitions: Vec<Transition>,
}

/// A channel, for traces. A buffered channel owns slots: a count and its item cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    pub name: String,
    /// 0 for rendezvous.
    pub capacity: u32,
    /// Slot of the item count (buffered channels only).
    pub count: Option<SlotId>,
}

/// The property (Büchi) process of a model with `system ... property P`: not part of
/// the system the [`Program`] runs, but an [`Automaton`] over the program's labels
/// (one predicate per guard), for [`warpcheck_model::Product`]. The process keeps its
/// control slot, which the product uses for the automaton state
/// ([`warpcheck_model::Model::spare_bits`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Index into [`Program::processes`].
    pub process: u32,
    pub automaton: Automaton,
}

/// A model lowered to the IR: everything an engine needs and nothing of the source
/// language.
#[derive(Clone, Debug)]
pub struct Program {
    pub layout: Layout,
    pub variables: Vec<Variable>,
    pub processes: Vec<Process>,
    pub channels: Vec<Channel>,
    /// Initial value of every slot.
    pub initial_values: Vec<i32>,
    pub groups: Vec<Group>,
    pub mode: SyncMode,
    pub property: Option<Property>,
    pub assertions: Vec<Assertion>,
    /// Number of temporaries effects use.
    pub temps: u32,
    /// What an out-of-range assignment does.
    pub overflow: crate::Overflow,
    /// State predicates added after lowering (user invariants, propositions): labels
    /// after the assertions' (see [`Program::add_predicate`]).
    pub predicates: Vec<Predicate>,
}

/// A state predicate of a model, as written and lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicate {
    pub text: String,
    pub expr: crate::ir::Expr,
}

impl Program {
    /// An evaluator of this model's expressions with the given temporaries.
    pub fn evaluator<'a>(&'a self, temps: &'a mut [i32]) -> crate::Evaluator<'a> {
        crate::Evaluator { layout: &self.layout, temps, overflow: self.overflow }
    }

    /// Adds a state predicate and returns its label id.
    pub fn add_predicate(&mut self, text: &str, expr: crate::ir::Expr) -> usize {
        self.predicates.push(Predicate { text: text.to_string(), expr });
        self.assertions.len() + self.predicates.len() - 1
    }

    /// The predicate behind label `label`, if it is one (not an assertion).
    pub fn predicate(&self, label: usize) -> Option<&Predicate> {
        label.checked_sub(self.assertions.len()).and_then(|i| self.predicates.get(i))
    }

    /// The initial state vector.
    pub fn initial_state(&self) -> Vec<u32> {
        self.layout.encode(&self.initial_values)
    }

    /// Number of 32-bit words per state.
    pub fn state_words(&self) -> usize {
        self.layout.words()
    }

    /// The processes of the system proper (all but the property automaton).
    pub fn system_processes(&self) -> impl Iterator<Item = (u32, &Process)> {
        let property = self.property.as_ref().map(|p| p.process);
        (0u32..).zip(&self.processes).filter(move |(i, _)| Some(*i) != property)
    }

    /// Name of a variable, qualified by its process for locals (`P.x`).
    pub fn variable_name(&self, var: VarId) -> String {
        let Some(v) = self.variables.get(var as usize) else {
            return "channel buffer".to_string();
        };
        match v.process {
            Some(p) => format!("{}.{}", self.processes[p as usize].name, v.name),
            None => v.name.clone(),
        }
    }

    /// The variable owning a slot and the element index within it, if any.
    pub fn slot_owner(&self, slot: SlotId) -> Option<(VarId, u32)> {
        self.variables
            .iter()
            .position(|v| slot >= v.first && slot < v.first + v.len)
            .map(|i| (i as VarId, slot - self.variables[i].first))
    }

    /// The property automaton (of `system ... property P`), for
    /// [`warpcheck_model::Product`].
    pub fn property_automaton(&self) -> Option<&Automaton> {
        self.property.as_ref().map(|p| &p.automaton)
    }

    /// The system with its property process: the product the LTL engines check
    /// (`None` without a property process).
    pub fn product(&self) -> Option<warpcheck_model::Product<&Program>> {
        self.property_automaton().map(|a| warpcheck_model::Product::new(self, a.clone()))
    }

    /// The name of a process's current control state.
    pub fn control_state_name(&self, process: u32, state: &[u32]) -> &str {
        let p = &self.processes[process as usize];
        &p.states[self.layout.slot(p.control).get(state) as usize]
    }
}
