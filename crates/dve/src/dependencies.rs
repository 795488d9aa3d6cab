//! The dependency matrices of a [`Program`]'s transition groups, after PINS: which
//! state words a group reads, may write and always writes.
//!
//! Conservative where the IR is dynamic: an indexed array access reads (or writes) every
//! element of the array. In a model with a property process every step also reads what
//! the automaton's guards read and writes the automaton's control word, so every row
//! carries those too.

use warpcheck_model::{Dependencies, SlotId};

use crate::ir::{Expr, LValue, Stmt};
use crate::Program;

/// A row of word flags being filled.
struct Row<'a> {
    program: &'a Program,
    words: Vec<bool>,
}

impl Row<'_> {
    fn slot(&mut self, slot: SlotId) {
        self.words[self.program.layout.slot(slot).word as usize] = true;
    }

    fn slots(&mut self, first: SlotId, len: u32) {
        (first..first + len).for_each(|s| self.slot(s));
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Const(_) | Expr::Temp(_) => {}
            Expr::Load(s) => self.slot(*s),
            Expr::LoadIndexed(array, i) => {
                self.slots(array.first, array.len);
                self.expr(i);
            }
            Expr::Unary(_, a) => self.expr(a),
            Expr::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
        }
    }
}

/// The matrices of `program`: one row per group, one column per state word.
pub fn dependencies(program: &Program) -> Dependencies {
    let row = || Row { program, words: vec![false; program.state_words()] };
    let mut deps = Dependencies::default();
    for group in &program.groups {
        let (mut read, mut may, mut must) = (row(), row(), row());
        group.source.iter().for_each(|&(s, _)| read.slot(s));
        group.guards.iter().for_each(|g| read.expr(g));
        for stmt in &group.effect {
            match stmt {
                Stmt::Assign(LValue::Slot(s), e) => {
                    read.expr(e);
                    may.slot(*s);
                    must.slot(*s);
                }
                Stmt::Assign(LValue::Indexed(array, i), e) => {
                    read.expr(e);
                    read.expr(i);
                    may.slots(array.first, array.len);
                }
                Stmt::SetTemp(_, e) => read.expr(e),
                Stmt::ShiftDown { first, len, .. } => {
                    read.slots(*first, *len);
                    may.slots(*first, *len);
                }
            }
        }
        deps.read.push(read.words);
        deps.may_write.push(may.words);
        deps.must_write.push(must.words);
    }
    deps
}
