//! Negation normal form: formulas built from literals with `&&`, `||`, `X`, `U` and `R`
//! only, hash-consed in an arena ([`Nnf`]) so that equal subformulas have equal ids,
//! and simplified as they are built.
//!
//! The rewriting (each a language equivalence):
//! - constants: `true && a = a`, `false U a = a`, `a U false = false`, `X true = true`,
//!   `a R true = true`, ...; `p && !p = false`, `p || !p = true` for literals;
//! - idempotence: `a && a = a`, `a U a = a`, `a U (a U b) = a U b`,
//!   `a R (a R b) = a R b` (so `F F a = F a`, `G G a = G a`);
//! - `G a && G b = G (a && b)`, `F a || F b = F (a || b)`, `F G F a = G F a`,
//!   `G G F a = G F a`... (the last two by idempotence and `F (G F a) = G F a`);
//! - `&&`/`||` operands in id order (commutativity), so `a && b` and `b && a` are one
//!   node.
//!
//! `F a` is `true U a`, `G a` is `false R a`, `a W b` is `b R (a || b)`, `a -> b` is
//! `!a || b` and `a <-> b` is `(a && b) || (!a && !b)`.

use std::collections::HashMap;

use crate::formula::Ltl;

/// Id of a node in an [`Nnf`] arena.
pub type Id = u32;

/// A node of a formula in negation normal form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    True,
    False,
    /// Atomic proposition `ap`, or its negation when `positive` is false.
    Lit {
        ap: u32,
        positive: bool,
    },
    And(Id, Id),
    Or(Id, Id),
    Next(Id),
    Until(Id, Id),
    Release(Id, Id),
}

/// An arena of hash-consed NNF nodes.
#[derive(Clone, Debug, Default)]
pub struct Nnf {
    nodes: Vec<Node>,
    index: HashMap<Node, Id>,
}

impl Nnf {
    pub fn new() -> Nnf {
        Nnf::default()
    }

    /// The node with id `id`.
    pub fn node(&self, id: Id) -> Node {
        self.nodes[id as usize]
    }

    /// The number of nodes created (ids are below it).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn intern(&mut self, node: Node) -> Id {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        let id = self.nodes.len() as Id;
        self.nodes.push(node);
        self.index.insert(node, id);
        id
    }

    pub fn constant(&mut self, value: bool) -> Id {
        self.intern(if value { Node::True } else { Node::False })
    }

    pub fn lit(&mut self, ap: u32, positive: bool) -> Id {
        self.intern(Node::Lit { ap, positive })
    }

    /// Whether `a` and `b` are complementary literals.
    fn complementary(&self, a: Id, b: Id) -> bool {
        matches!((self.node(a), self.node(b)),
            (Node::Lit { ap: x, positive: p }, Node::Lit { ap: y, positive: q }) if x == y && p != q)
    }

    fn is_true(&self, a: Id) -> bool {
        self.node(a) == Node::True
    }

    fn is_false(&self, a: Id) -> bool {
        self.node(a) == Node::False
    }

    /// `G x` as `false R x`: `Some(x)`.
    fn globally_of(&self, a: Id) -> Option<Id> {
        match self.node(a) {
            Node::Release(f, x) if self.is_false(f) => Some(x),
            _ => None,
        }
    }

    /// `F x` as `true U x`: `Some(x)`.
    fn finally_of(&self, a: Id) -> Option<Id> {
        match self.node(a) {
            Node::Until(t, x) if self.is_true(t) => Some(x),
            _ => None,
        }
    }

    pub fn and(&mut self, a: Id, b: Id) -> Id {
        match (self.node(a), self.node(b)) {
            (Node::True, _) => b,
            (_, Node::True) => a,
            (Node::False, _) | (_, Node::False) => self.constant(false),
            _ if a == b => a,
            _ if self.complementary(a, b) => self.constant(false),
            _ => match (self.globally_of(a), self.globally_of(b)) {
                (Some(x), Some(y)) => {
                    let both = self.and(x, y);
                    self.globally(both)
                }
                _ => self.intern(Node::And(a.min(b), a.max(b))),
            },
        }
    }

    pub fn or(&mut self, a: Id, b: Id) -> Id {
        match (self.node(a), self.node(b)) {
            (Node::False, _) => b,
            (_, Node::False) => a,
            (Node::True, _) | (_, Node::True) => self.constant(true),
            _ if a == b => a,
            _ if self.complementary(a, b) => self.constant(true),
            _ => match (self.finally_of(a), self.finally_of(b)) {
                (Some(x), Some(y)) => {
                    let either = self.or(x, y);
                    self.finally(either)
                }
                _ => self.intern(Node::Or(a.min(b), a.max(b))),
            },
        }
    }

    pub fn next(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::True | Node::False => a,
            _ => self.intern(Node::Next(a)),
        }
    }

    pub fn until(&mut self, a: Id, b: Id) -> Id {
        match (self.node(a), self.node(b)) {
            (_, Node::True | Node::False) => b,
            (Node::False, _) => b,
            _ if a == b => b,
            // a U (a U c) = a U c.
            (_, Node::Until(x, _)) if x == a => b,
            // F (G F c) = G F c.
            (Node::True, Node::Release(f, inner)) if self.is_false(f) && self.finally_of(inner).is_some() => b,
            _ => self.intern(Node::Until(a, b)),
        }
    }

    pub fn release(&mut self, a: Id, b: Id) -> Id {
        match (self.node(a), self.node(b)) {
            (_, Node::True | Node::False) => b,
            (Node::True, _) => b,
            _ if a == b => b,
            // a R (a R c) = a R c.
            (_, Node::Release(x, _)) if x == a => b,
            // G (F G c) = F G c.
            (Node::False, Node::Until(t, inner)) if self.is_true(t) && self.globally_of(inner).is_some() => b,
            _ => self.intern(Node::Release(a, b)),
        }
    }

    pub fn finally(&mut self, a: Id) -> Id {
        let t = self.constant(true);
        self.until(t, a)
    }

    pub fn globally(&mut self, a: Id) -> Id {
        let f = self.constant(false);
        self.release(f, a)
    }

    /// The negation of `a`, in negation normal form.
    pub fn negate(&mut self, a: Id) -> Id {
        match self.node(a) {
            Node::True => self.constant(false),
            Node::False => self.constant(true),
            Node::Lit { ap, positive } => self.lit(ap, !positive),
            Node::And(x, y) => {
                let (x, y) = (self.negate(x), self.negate(y));
                self.or(x, y)
            }
            Node::Or(x, y) => {
                let (x, y) = (self.negate(x), self.negate(y));
                self.and(x, y)
            }
            Node::Next(x) => {
                let x = self.negate(x);
                self.next(x)
            }
            Node::Until(x, y) => {
                let (x, y) = (self.negate(x), self.negate(y));
                self.release(x, y)
            }
            Node::Release(x, y) => {
                let (x, y) = (self.negate(x), self.negate(y));
                self.until(x, y)
            }
        }
    }

    /// `f` (or `!f` when `negated`) in negation normal form.
    pub fn from_ltl(&mut self, f: &Ltl, negated: bool) -> Id {
        let id = match f {
            Ltl::True => self.constant(true),
            Ltl::False => self.constant(false),
            Ltl::Ap(i) => self.lit(*i, true),
            Ltl::Not(a) => return self.from_ltl(a, !negated),
            Ltl::And(a, b) => {
                let (a, b) = (self.from_ltl(a, false), self.from_ltl(b, false));
                self.and(a, b)
            }
            Ltl::Or(a, b) => {
                let (a, b) = (self.from_ltl(a, false), self.from_ltl(b, false));
                self.or(a, b)
            }
            Ltl::Implies(a, b) => {
                let (a, b) = (self.from_ltl(a, true), self.from_ltl(b, false));
                self.or(a, b)
            }
            Ltl::Equiv(a, b) => {
                let (pa, pb) = (self.from_ltl(a, false), self.from_ltl(b, false));
                let (na, nb) = (self.negate(pa), self.negate(pb));
                let (both, neither) = (self.and(pa, pb), self.and(na, nb));
                self.or(both, neither)
            }
            Ltl::Next(a) => {
                let a = self.from_ltl(a, false);
                self.next(a)
            }
            Ltl::Finally(a) => {
                let a = self.from_ltl(a, false);
                self.finally(a)
            }
            Ltl::Globally(a) => {
                let a = self.from_ltl(a, false);
                self.globally(a)
            }
            Ltl::Until(a, b) => {
                let (a, b) = (self.from_ltl(a, false), self.from_ltl(b, false));
                self.until(a, b)
            }
            Ltl::Release(a, b) => {
                let (a, b) = (self.from_ltl(a, false), self.from_ltl(b, false));
                self.release(a, b)
            }
            Ltl::WeakUntil(a, b) => {
                let (a, b) = (self.from_ltl(a, false), self.from_ltl(b, false));
                let either = self.or(a, b);
                self.release(b, either)
            }
        };
        if negated {
            self.negate(id)
        } else {
            id
        }
    }

    /// `a` as text, fully parenthesised, with atomic propositions `p0`, `p1`, ...
    pub fn show(&self, a: Id) -> String {
        match self.node(a) {
            Node::True => "true".into(),
            Node::False => "false".into(),
            Node::Lit { ap, positive } => format!("{}p{ap}", if positive { "" } else { "!" }),
            Node::And(x, y) => format!("({} && {})", self.show(x), self.show(y)),
            Node::Or(x, y) => format!("({} || {})", self.show(x), self.show(y)),
            Node::Next(x) => format!("X {}", self.show(x)),
            Node::Until(x, y) if self.is_true(x) => format!("F {}", self.show(y)),
            Node::Release(x, y) if self.is_false(x) => format!("G {}", self.show(y)),
            Node::Until(x, y) => format!("({} U {})", self.show(x), self.show(y)),
            Node::Release(x, y) => format!("({} R {})", self.show(x), self.show(y)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::parse;

    fn nnf(text: &str, negated: bool) -> String {
        let mut arena = Nnf::new();
        let id = arena.from_ltl(&parse(text).unwrap().ltl, negated);
        arena.show(id)
    }

    #[test]
    fn negation_is_pushed_to_the_literals() {
        assert_eq!(nnf("G (a -> F b)", true), "F (p0 && G !p1)");
        assert_eq!(nnf("a U b", true), "(!p0 R !p1)");
        assert_eq!(nnf("!(a W b)", false), "(!p1 U (!p1 && !p0))");
        assert_eq!(nnf("X !a <-> b", false), "((X !p0 && p1) || (X p0 && !p1))");
    }

    #[test]
    fn simplifications() {
        assert_eq!(nnf("F F a", false), "F p0");
        assert_eq!(nnf("G G a", false), "G p0");
        assert_eq!(nnf("a && !a", false), "false");
        assert_eq!(nnf("a || true", false), "true");
        assert_eq!(nnf("G a && G b", false), "G (p0 && p1)");
        assert_eq!(nnf("F a || F b", false), "F (p0 || p1)");
        assert_eq!(nnf("F G F a", false), "G F p0");
        assert_eq!(nnf("G F G a", false), "F G p0");
        assert_eq!(nnf("X true U a", false), "F p0");
        assert_eq!(nnf("a U (a U b)", false), "(p0 U p1)");
        assert_eq!(nnf("b && a", false), nnf("a && b", false));
        assert_eq!(nnf("false && a", false), "false");
    }
}
