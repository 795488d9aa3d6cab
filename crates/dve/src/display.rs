//! Human-readable descriptions of steps, evaluation errors and state changes, for
//! traces and messages.

use crate::ir::GroupKind;
use crate::program::Program;
use warpcheck_model::interface::Step;
use warpcheck_model::EvalError;

impl Program {
    /// Describes one process transition: `P: s -> t`.
    pub fn describe_transition(&self, process: u32, transition: u32) -> String {
        let p = &self.processes[process as usize];
        let t = &p.transitions[transition as usize];
        format!("{}: {} -> {}", p.name, p.states[t.from as usize], p.states[t.to as usize])
    }

    /// Describes a step: the processes, transitions and channel involved.
    pub fn describe_step(&self, step: &Step<'_>) -> String {
        let mut parts = Vec::new();
        for &g in step.groups {
            let group = &self.groups[g as usize];
            let moves: Vec<String> =
                group.participants.iter().map(|p| self.describe_transition(p.process, p.transition)).collect();
            let channel = group.channel.map(|c| &self.channels[c as usize].name);
            parts.push(match (group.kind, channel) {
                (GroupKind::Rendezvous, Some(c)) => format!("{} | {} (rendezvous on {c})", moves[0], moves[1]),
                (GroupKind::BufferedSend, Some(c)) => format!("{} (send to {c})", moves[0]),
                (GroupKind::BufferedReceive, Some(c)) => format!("{} (receive from {c})", moves[0]),
                _ => moves.join(" | "),
            });
        }
        parts.join("; ")
    }

    /// Describes an evaluation error with variable names.
    pub fn describe_error(&self, error: &EvalError) -> String {
        match *error {
            EvalError::DivisionByZero => "division by zero".to_string(),
            EvalError::Arithmetic { what } => what.to_string(),
            EvalError::IndexOutOfBounds { var, index, len } => {
                format!("array index {index} out of bounds for `{}[{len}]`", self.variable_name(var))
            }
            EvalError::OutOfRange { slot, value } => {
                let ty = self.layout.slot(slot).ty;
                format!(
                    "value {value} out of range {}..{} assigned to `{}`",
                    ty.min(),
                    ty.max(),
                    self.describe_slot(slot)
                )
            }
        }
    }

    /// Names a slot: a variable, an array element, a control state or a channel cell.
    pub fn describe_slot(&self, slot: u32) -> String {
        if let Some((var, i)) = self.slot_owner(slot) {
            let name = self.variable_name(var);
            return if self.variables[var as usize].is_array { format!("{name}[{i}]") } else { name };
        }
        if let Some(p) = self.processes.iter().find(|p| p.control == slot) {
            return format!("{} (control state)", p.name);
        }
        if let Some(c) = self.channels.iter().find(|c| c.count == Some(slot)) {
            return format!("{} (item count)", c.name);
        }
        format!("slot {slot}")
    }

    /// The variables whose values differ between two states, as `name = new (was old)`
    /// (control states are left out: the step names them).
    pub fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        let mut out = Vec::new();
        for (i, slot) in self.layout.slots().iter().enumerate() {
            let (a, b) = (slot.get(before), slot.get(after));
            if a != b && !self.processes.iter().any(|p| p.control == i as u32) {
                out.push(format!("{} = {b} (was {a})", self.describe_slot(i as u32)));
            }
        }
        out
    }

    /// Every variable and control state of a state: `x = 3`, `a = [1, 0]`, `P: idle`.
    pub fn describe_state(&self, state: &[u32]) -> Vec<String> {
        let mut out = Vec::new();
        for (i, v) in self.variables.iter().enumerate() {
            let values: Vec<String> =
                (v.first..v.first + v.len).map(|s| self.layout.slot(s).get(state).to_string()).collect();
            let name = self.variable_name(i as u32);
            out.push(if v.is_array {
                format!("{name} = [{}]", values.join(", "))
            } else {
                format!("{name} = {}", values[0])
            });
        }
        for c in &self.channels {
            if let Some(count) = c.count {
                out.push(format!("{} holds {} item(s)", c.name, self.layout.slot(count).get(state)));
            }
        }
        for (i, p) in self.system_processes() {
            out.push(format!("{}: {}", p.name, self.control_state_name(i, state)));
        }
        out
    }
}
