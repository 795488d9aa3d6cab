//! The table `wc_plan` that plan.c reads: a grounded task's actions, goal and
//! index of actions by precondition fact as words (the layout is described at the top of plan.c).

use crate::numeric::{Assign, Cmp};
use crate::search::Successors;
use crate::task::{Condition, ConditionalEffect, Formula, NumExpr, NumericEffect, Task};

/// Postfix code kinds (bits 31..30 of a code word); a comparison is `ALL` with bit 29
/// set and its operator in the low bits, its two expressions after it.
const FACT: u32 = 0;
const NOT_FACT: u32 = 1 << 30;
const ALL: u32 = 2 << 30;
const ANY: u32 = 3 << 30;
const COMPARE: u32 = ALL | 1 << 29;
/// The largest fact a code word holds, and the most operands of `ALL` and `ANY`.
const ARG: u32 = (1 << 30) - 1;
const PARTS: u32 = (1 << 29) - 1;
/// Expression tokens (bits 31..29; a variable's state word, or a constant's two words
/// after its token).
const VAR: u32 = 0;
const CONST: u32 = 1 << 29;
const ADD: u32 = 2 << 29;
const SUB: u32 = 3 << 29;
const MUL: u32 = 4 << 29;
const NEG: u32 = 5 << 29;

/// Why a task has no table: a number past what a code word holds.
#[derive(Debug)]
pub struct NoTable(pub String);

/// The stack depths of a table's code: of its conditions' truth values and of its
/// numeric expressions' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depths {
    pub conditions: usize,
    pub values: usize,
}

/// The table of `task` with its index of actions by one positive precondition
/// (`index`, the CPU's), and the depths of the stacks its code needs.
pub fn build(task: &Task, index: &Successors) -> Result<(Vec<u32>, Depths), NoTable> {
    let mut t = Table { words: vec![0; 4 + task.actions.len()], depths: Depths { conditions: 1, values: 1 } };
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
        for ConditionalEffect { condition, add, delete, numeric } in &action.conditional {
            t.condition(condition)?;
            t.pairs(add);
            t.pairs(delete);
            t.numeric(numeric)?;
        }
        t.numeric(&action.numeric)?;
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
    Ok((t.words, t.depths))
}

struct Table {
    words: Vec<u32>,
    depths: Depths,
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
            let depth = postfix(rest, &mut code, &mut self.depths.values)?;
            self.depths.conditions = self.depths.conditions.max(depth);
        }
        self.words.push(code.len() as u32);
        self.words.extend(code);
        self.words[at] = (self.words.len() - at) as u32;
        Ok(())
    }

    /// Numeric effects as `[count, (word, operation, expression)...]`.
    fn numeric(&mut self, effects: &[NumericEffect]) -> Result<(), NoTable> {
        self.words.push(effects.len() as u32);
        for NumericEffect { word, op, value, .. } in effects {
            let op = match op {
                Assign::Assign => 0,
                Assign::Increase => 1,
                Assign::Decrease => 2,
                Assign::ScaleUp => 3,
            };
            self.words.extend([*word, op]);
            self.expression(value)?;
        }
        Ok(())
    }

    /// Appends `e` as `[length, tokens...]`.
    fn expression(&mut self, e: &NumExpr) -> Result<(), NoTable> {
        let depth = expression(e, &mut self.words)?;
        self.depths.values = self.depths.values.max(depth);
        Ok(())
    }
}

/// Appends `e` as `[length, tokens...]`; returns the stack depth its tokens need.
fn expression(e: &NumExpr, code: &mut Vec<u32>) -> Result<usize, NoTable> {
    let at = code.len();
    code.push(0);
    let depth = tokens(e, code)?;
    code[at] = (code.len() - at - 1) as u32;
    Ok(depth)
}

/// Appends `e`'s tokens in postfix order; returns the stack depth they need.
fn tokens(e: &NumExpr, code: &mut Vec<u32>) -> Result<usize, NoTable> {
    Ok(match e {
        NumExpr::Const(c) => {
            code.extend([CONST, *c as u64 as u32, (*c as u64 >> 32) as u32]);
            1
        }
        NumExpr::Var(w) if *w < CONST => {
            code.push(VAR | w);
            1
        }
        NumExpr::Var(w) => return Err(NoTable(format!("a numeric fluent in state word {w}, past the table's"))),
        NumExpr::Add(a, b) | NumExpr::Sub(a, b) | NumExpr::Mul(a, b) => {
            let depth = tokens(a, code)?.max(1 + tokens(b, code)?);
            code.push(match e {
                NumExpr::Add(..) => ADD,
                NumExpr::Sub(..) => SUB,
                _ => MUL,
            });
            depth
        }
        NumExpr::Neg(a) => {
            let depth = tokens(a, code)?;
            code.push(NEG);
            depth
        }
    })
}

/// Appends `f` as postfix code; returns the stack depth it needs, and raises `values`
/// to the depth its comparisons' expressions need.
fn postfix(f: &Formula, code: &mut Vec<u32>, values: &mut usize) -> Result<usize, NoTable> {
    let arg = |n: usize, most: u32| match u32::try_from(n) {
        Ok(n) if n <= most => Ok(n),
        _ => Err(NoTable(format!("a condition part of {n} exceeds the table's {most}"))),
    };
    Ok(match f {
        Formula::Fact(x) => {
            code.push(FACT | arg(*x as usize, ARG)?);
            1
        }
        Formula::NotFact(x) => {
            code.push(NOT_FACT | arg(*x as usize, ARG)?);
            1
        }
        Formula::Compare(cmp, a, b) => {
            let cmp = match cmp {
                Cmp::Less => 0,
                Cmp::LessEq => 1,
                Cmp::Equal => 2,
                Cmp::GreaterEq => 3,
                Cmp::Greater => 4,
            };
            code.push(COMPARE | cmp);
            for e in [a, b] {
                *values = (*values).max(expression(e, code)?);
            }
            1
        }
        Formula::And(parts) | Formula::Or(parts) => {
            // Operand i sits on i values already pushed.
            let mut depth = 1;
            for (i, p) in parts.iter().enumerate() {
                depth = depth.max(i + postfix(p, code, values)?);
            }
            code.push(if matches!(f, Formula::And(_)) { ALL } else { ANY } | arg(parts.len(), PARTS)?);
            depth
        }
    })
}
