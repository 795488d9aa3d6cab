//! Ranges of the numeric fluents of a grounded [`Task`], proven by interval analysis:
//! each fluent starts at its initial value; an action's numeric effect widens the
//! fluent's interval by what the effect can produce from the intervals of the state
//! before it, narrowed by the comparisons of the action's precondition that bound a
//! fluent directly (`(>= (fuel ?v) (demand ?a ?b))` before `(decrease (fuel ?v)
//! (demand ?a ?b))` keeps the fuel non-negative; `(< (passengers ?l) (capacity ?l))`
//! before an `increase` by 1 bounds it by the capacity), to a fixpoint. After
//! `WIDEN_AFTER` rounds a bound that still moves is dropped (widening), so the
//! analysis ends; bounds past ±2^40 count as none.
//!
//! Sound by induction over plans: the initial state lies in the intervals, and an
//! action applicable in a state inside them satisfies its precondition, so its
//! successor lies inside them too. The bounds are reported ([`NumericVar::lower`],
//! [`NumericVar::upper`]); the state holds any `i32` whatever they are, and a value
//! outside `i32` is an error when the search meets it (`task::OutOfRange`).

use crate::numeric::{Assign, Cmp};
use crate::task::{Formula, NumExpr, NumericVar, Task};

/// Rounds before a bound that still moves is dropped.
const WIDEN_AFTER: usize = 16;
/// Bounds at or past this magnitude count as none.
const LIMIT: i128 = 1 << 40;
/// No bound.
const INF: i128 = 1 << 100;

/// A closed interval of integers (`lo > hi`: empty), `±INF` for no bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Interval {
    lo: i128,
    hi: i128,
}

fn norm(x: i128) -> i128 {
    if x >= LIMIT {
        INF
    } else if x <= -LIMIT {
        -INF
    } else {
        x
    }
}

impl Interval {
    fn point(x: i128) -> Interval {
        Interval { lo: x, hi: x }
    }

    fn new(lo: i128, hi: i128) -> Interval {
        Interval { lo: norm(lo), hi: norm(hi) }
    }

    fn add(self, o: Interval) -> Interval {
        Interval::new(self.lo.saturating_add(o.lo), self.hi.saturating_add(o.hi))
    }

    fn neg(self) -> Interval {
        Interval::new(-self.hi, -self.lo)
    }

    fn mul(self, o: Interval) -> Interval {
        let p = [
            self.lo.saturating_mul(o.lo),
            self.lo.saturating_mul(o.hi),
            self.hi.saturating_mul(o.lo),
            self.hi.saturating_mul(o.hi),
        ];
        Interval::new(*p.iter().min().expect("4"), *p.iter().max().expect("4"))
    }

    fn is_empty(self) -> bool {
        self.lo > self.hi
    }

    fn contains(self, o: Interval) -> bool {
        self.lo <= o.lo && o.hi <= self.hi
    }

    /// Narrowed to the values `x` with `x cmp e` for some `e` in `other`.
    fn narrow(self, cmp: Cmp, other: Interval) -> Interval {
        let (mut lo, mut hi) = (self.lo, self.hi);
        match cmp {
            Cmp::Less => hi = hi.min(norm(other.hi - 1)),
            Cmp::LessEq => hi = hi.min(other.hi),
            Cmp::Greater => lo = lo.max(norm(other.lo + 1)),
            Cmp::GreaterEq => lo = lo.max(other.lo),
            Cmp::Equal => (lo, hi) = (lo.max(other.lo), hi.min(other.hi)),
        }
        Interval { lo, hi }
    }
}

/// `a cmp b` as `b flipped(cmp) a`.
fn flipped(cmp: Cmp) -> Cmp {
    match cmp {
        Cmp::Less => Cmp::Greater,
        Cmp::LessEq => Cmp::GreaterEq,
        Cmp::Equal => Cmp::Equal,
        Cmp::GreaterEq => Cmp::LessEq,
        Cmp::Greater => Cmp::Less,
    }
}

/// The intervals of a state that satisfies an action's precondition: the invariant
/// intervals, narrowed where a top-level comparison bounds a fluent.
struct Before<'a> {
    invariant: &'a [Interval],
    base: usize,
    narrowed: Vec<(usize, Interval)>,
}

impl Before<'_> {
    fn of(&self, var: usize) -> Interval {
        self.narrowed.iter().rev().find(|(v, _)| *v == var).map_or(self.invariant[var], |(_, i)| *i)
    }

    fn eval(&self, e: &NumExpr) -> Interval {
        match e {
            NumExpr::Const(c) => Interval::point((*c).into()),
            NumExpr::Var(w) => self.of(*w as usize - self.base),
            NumExpr::Add(a, b) => self.eval(a).add(self.eval(b)),
            NumExpr::Sub(a, b) => self.eval(a).add(self.eval(b).neg()),
            NumExpr::Mul(a, b) => self.eval(a).mul(self.eval(b)),
            NumExpr::Neg(a) => self.eval(a).neg(),
        }
    }

    /// Narrows by the comparisons among `f`'s top-level conjuncts; false when some
    /// fluent's interval becomes empty (the precondition cannot hold).
    fn narrow(&mut self, f: &Formula) -> bool {
        match f {
            Formula::And(parts) => parts.iter().all(|p| self.narrow(p)),
            Formula::Compare(cmp, a, b) => {
                for (x, cmp, y) in [(a, *cmp, b), (b, flipped(*cmp), a)] {
                    if let NumExpr::Var(w) = x {
                        let v = *w as usize - self.base;
                        let i = self.of(v).narrow(cmp, self.eval(y));
                        if i.is_empty() {
                            return false;
                        }
                        self.narrowed.push((v, i));
                    }
                }
                true
            }
            _ => true,
        }
    }
}

/// Sets the bounds of `task`'s numeric fluents.
pub fn prove(task: &mut Task) {
    if task.numeric.is_empty() {
        return;
    }
    let base = task.fact_words();
    let mut invariant: Vec<Interval> = task.numeric.iter().map(|v| Interval::point(v.init.into())).collect();
    for round in 0.. {
        let mut changed = false;
        for a in task.actions.iter() {
            // The conditional effects' (which may or may not fire), then the others, in
            // the order the successor code applies them.
            let conditional = a.conditional.iter().flat_map(|c| c.numeric.iter().map(|e| (e, true)));
            let effects: Vec<_> = conditional.chain(a.numeric.iter().map(|e| (e, false))).collect();
            if effects.is_empty() {
                continue;
            }
            let mut before = Before { invariant: &invariant, base, narrowed: Vec::new() };
            if let Some(rest) = &a.precondition.rest {
                if !before.narrow(rest) {
                    continue;
                }
            }
            let mut after: Vec<(usize, Interval)> = Vec::new();
            for (e, may) in effects {
                let v = e.var as usize;
                let old = after.iter().rev().find(|(w, _)| *w == v).map_or_else(|| before.of(v), |&(_, i)| i);
                let value = before.eval(&e.value);
                let new = match e.op {
                    Assign::Assign => value,
                    Assign::Increase => old.add(value),
                    Assign::Decrease => old.add(value.neg()),
                    Assign::ScaleUp => old.mul(value),
                };
                let new = if may { Interval { lo: old.lo.min(new.lo), hi: old.hi.max(new.hi) } } else { new };
                after.retain(|(w, _)| *w != v);
                after.push((v, new));
            }
            for (v, new) in after {
                let i = &mut invariant[v];
                if i.contains(new) {
                    continue;
                }
                changed = true;
                *i = if round < WIDEN_AFTER {
                    Interval { lo: i.lo.min(new.lo), hi: i.hi.max(new.hi) }
                } else {
                    Interval { lo: if new.lo < i.lo { -INF } else { i.lo }, hi: if new.hi > i.hi { INF } else { i.hi } }
                };
            }
        }
        if !changed {
            break;
        }
    }
    for (v, i) in task.numeric.iter_mut().zip(&invariant) {
        let finite = |x: i128| (x.abs() < LIMIT).then(|| i64::try_from(x).expect("below 2^40"));
        (v.lower, v.upper) = (finite(i.lo), finite(i.hi));
    }
}

/// The numeric fluents whose proven range leaves `i32`'s (or has no bound): those a
/// search may find out of range.
pub fn unproven(numeric: &[NumericVar]) -> usize {
    let fits = |v: &&NumericVar| {
        v.lower.is_some_and(|l| l >= i32::MIN.into()) && v.upper.is_some_and(|u| u <= i32::MAX.into())
    };
    numeric.iter().filter(|v| !fits(v)).count()
}
