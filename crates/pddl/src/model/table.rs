//! The table `wc_plan` that plan.c reads: a grounded task's actions, goal and
//! index of actions by precondition fact as words (the layout is described at the top of plan.c).

use crate::search::Successors;
use crate::task::{Condition, ConditionalEffect, Formula, Task};

/// Postfix code kinds (bits 31..30 of a code word).
const FACT: u32 = 0;
const NOT_FACT: u32 = 1 << 30;
const ALL: u32 = 2 << 30;
const ANY: u32 = 3 << 30;
/// The largest fact or operand count a code word holds.
const ARG: u32 = (1 << 30) - 1;

/// Why a task has no table: numeric fluents (plan.c has no integer state variables),
/// or a number past what a code word holds.
#[derive(Debug)]
pub struct NoTable(pub String);

/// The table of `task` with its index of actions by one positive precondition
/// (`index`, the CPU's), and the depth of the postfix stack its conditions need.
pub fn build(task: &Task, index: &Successors) -> Result<(Vec<u32>, usize), NoTable> {
    if !task.numeric.is_empty() {
        return Err(NoTable(format!(
            "the task has {} numeric fluent(s), which the GPU successor code does not support yet",
            task.numeric.len()
        )));
    }
    let mut t = Table { words: vec![0; 4 + task.actions.len()], depth: 1 };
    t.words[0] = u32::try_from(task.actions.len()).map_err(|_| NoTable("too many actions".into()))?;
    t.words[1] = u32::try_from(task.facts.len()).map_err(|_| NoTable("too many facts".into()))?;
    t.words[2] = t.here();
    t.condition(&task.goal)?;
    for (a, action) in task.actions.iter().enumerate() {
        t.words[4 + a] = t.here();
        t.condition(&action.precondition)?;
        t.pairs(&action.add);
        t.pairs(&action.delete);
        t.words.push(action.conditional.len() as u32);
        for ConditionalEffect { condition, add, delete } in &action.conditional {
            t.condition(condition)?;
            t.pairs(add);
            t.pairs(delete);
        }
    }
    t.words[3] = t.here();
    let Successors { by_fact, always } = index;
    let mut keys = vec![0u32; task.words];
    for (f, list) in by_fact.iter().enumerate() {
        if !list.is_empty() {
            keys[f / 32] |= 1 << (f % 32);
        }
    }
    t.words.extend(keys);
    let mut start = 0u32;
    for list in by_fact {
        t.words.push(start);
        start += list.len() as u32;
    }
    t.words.push(start);
    t.words.extend(by_fact.iter().flatten());
    t.words.push(always.len() as u32);
    t.words.extend(always);
    Ok((t.words, t.depth))
}

struct Table {
    words: Vec<u32>,
    depth: usize,
}

impl Table {
    fn here(&self) -> u32 {
        self.words.len() as u32
    }

    /// Facts as (word, mask) pairs, one per word that has any.
    fn pairs(&mut self, facts: &[u32]) {
        let mut masks: Vec<(u32, u32)> = Vec::new();
        for &f in facts {
            match masks.iter_mut().find(|(w, _)| *w == f / 32) {
                Some((_, m)) => *m |= 1 << (f % 32),
                None => masks.push((f / 32, 1 << (f % 32))),
            }
        }
        self.words.push(masks.len() as u32);
        for (w, m) in masks {
            self.words.extend([w, m]);
        }
    }

    fn condition(&mut self, c: &Condition) -> Result<(), NoTable> {
        let at = self.words.len();
        self.words.push(0);
        self.pairs(&c.positive);
        self.pairs(&c.negative);
        let mut code = Vec::new();
        if let Some(rest) = &c.rest {
            self.depth = self.depth.max(postfix(rest, &mut code)?);
        }
        self.words.push(code.len() as u32);
        self.words.extend(code);
        self.words[at] = (self.words.len() - at) as u32;
        Ok(())
    }
}

/// Appends `f` as postfix code; returns the stack depth it needs.
fn postfix(f: &Formula, code: &mut Vec<u32>) -> Result<usize, NoTable> {
    let arg = |n: usize| match u32::try_from(n) {
        Ok(n) if n <= ARG => Ok(n),
        _ => Err(NoTable(format!("a condition part of {n} exceeds the table's {ARG}"))),
    };
    Ok(match f {
        Formula::Fact(x) => {
            code.push(FACT | arg(*x as usize)?);
            1
        }
        Formula::NotFact(x) => {
            code.push(NOT_FACT | arg(*x as usize)?);
            1
        }
        Formula::Compare(..) => return Err(NoTable("a numeric comparison (GPU code: not supported yet)".into())),
        Formula::And(parts) | Formula::Or(parts) => {
            // Operand i sits on i values already pushed.
            let mut depth = 1;
            for (i, p) in parts.iter().enumerate() {
                depth = depth.max(i + postfix(p, code)?);
            }
            code.push(if matches!(f, Formula::And(_)) { ALL } else { ANY } | arg(parts.len())?);
            depth
        }
    })
}
