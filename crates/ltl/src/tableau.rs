//! The tableau construction of Gerth, Peled, Vardi and Wolper ("Simple on-the-fly
//! automatic verification of linear temporal logic", PSTV 1995): an NNF formula to a
//! generalized Büchi automaton whose states (tableau nodes) are labelled with the
//! literals that must hold where the run is in them.
//!
//! A node under construction holds `new` (obligations still to split), `old` (those
//! already split: they hold now) and `next` (what must hold in the successor). Taking a
//! formula from `new`: a literal goes to `old` (a node holding `p` and `!p` is dropped),
//! `a && b` adds both, `X a` adds `a` to `next`, and `a || b`, `a U b` (`b`, or `a`
//! and `X (a U b)`) and `a R b` (`a && b`, or `b` and `X (a R b)`) split the node in
//! two. A node with nothing `new` is finished: if a finished node with the same `old`
//! and `next` exists, it gains the incoming edges, else it is added and its successor
//! starts with `new = next`. The work is a stack of nodes, not recursion.
//!
//! One acceptance set per until subformula `a U b`: the nodes where `b` holds or that
//! do not promise `a U b`, so no run defers `b` forever.
//!
//! Size: the nodes are sets of subformulas, so at most `2^O(|φ|)` of them; for the
//! formulas people write (and BEEM's) a handful.

use std::collections::{BTreeSet, HashMap};

use crate::buchi::Cube;
use crate::nnf::{Id, Nnf, Node};

/// A generalized Büchi automaton with labels on states: a run reads letter `i` in the
/// `i`-th state it visits, which must satisfy the state's label.
#[derive(Clone, Debug, Default)]
pub struct Generalized {
    /// Per state: the literals that hold there.
    pub labels: Vec<Cube>,
    pub successors: Vec<Vec<usize>>,
    pub initial: Vec<usize>,
    /// Per acceptance set, per state: membership. A run is accepting when it visits
    /// every set infinitely often (with no set, every infinite run is).
    pub acceptance: Vec<Vec<bool>>,
}

/// `INIT` in the incoming sets: the node may start a run.
const INIT: usize = usize::MAX;

#[derive(Clone)]
struct Pending {
    incoming: BTreeSet<usize>,
    new: BTreeSet<Id>,
    old: BTreeSet<Id>,
    next: BTreeSet<Id>,
}

struct Finished {
    incoming: BTreeSet<usize>,
    old: BTreeSet<Id>,
}

/// The tableau of `formula` (an id of `arena`): accepts exactly the words satisfying
/// it. Literals must be of atomic propositions below 64 (see [`Cube`]).
pub fn tableau(arena: &Nnf, formula: Id) -> Generalized {
    let mut finished: Vec<Finished> = Vec::new();
    let mut by_key: HashMap<(BTreeSet<Id>, BTreeSet<Id>), usize> = HashMap::new();
    let mut stack = vec![Pending {
        incoming: BTreeSet::from([INIT]),
        new: BTreeSet::from([formula]),
        old: BTreeSet::new(),
        next: BTreeSet::new(),
    }];
    while let Some(mut node) = stack.pop() {
        let Some(eta) = node.new.pop_first() else {
            let key = (node.old, node.next);
            match by_key.get(&key) {
                Some(&n) => finished[n].incoming.extend(node.incoming),
                None => {
                    let n = finished.len();
                    by_key.insert(key.clone(), n);
                    let (old, next) = key;
                    finished.push(Finished { incoming: node.incoming, old });
                    stack.push(Pending {
                        incoming: BTreeSet::from([n]),
                        new: next,
                        old: BTreeSet::new(),
                        next: BTreeSet::new(),
                    });
                }
            }
            continue;
        };
        if node.old.contains(&eta) {
            stack.push(node);
            continue;
        }
        let add = |set: &mut BTreeSet<Id>, old: &BTreeSet<Id>, f: Id| {
            if !old.contains(&f) {
                set.insert(f);
            }
        };
        match arena.node(eta) {
            Node::False => {}
            Node::True => stack.push(node),
            Node::Lit { ap, positive } => {
                let contradiction =
                    node.old.iter().any(|&o| o != eta && arena.node(o) == Node::Lit { ap, positive: !positive });
                if !contradiction {
                    node.old.insert(eta);
                    stack.push(node);
                }
            }
            Node::And(a, b) => {
                node.old.insert(eta);
                add(&mut node.new, &node.old, a);
                add(&mut node.new, &node.old, b);
                stack.push(node);
            }
            Node::Next(a) => {
                node.old.insert(eta);
                node.next.insert(a);
                stack.push(node);
            }
            Node::Or(a, b) | Node::Until(a, b) | Node::Release(a, b) => {
                node.old.insert(eta);
                let mut second = node.clone();
                // First branch: `a` (or), `a` and X(a U b) (until), `b` and X(a R b) (release).
                match arena.node(eta) {
                    Node::Or(..) => add(&mut node.new, &node.old, a),
                    Node::Until(..) => {
                        add(&mut node.new, &node.old, a);
                        node.next.insert(eta);
                    }
                    _ => {
                        add(&mut node.new, &node.old, b);
                        node.next.insert(eta);
                    }
                }
                // Second branch: `b` (or, until), `a` and `b` (release).
                if matches!(arena.node(eta), Node::Release(..)) {
                    add(&mut second.new, &second.old, a);
                }
                add(&mut second.new, &second.old, b);
                stack.push(second);
                stack.push(node);
            }
        }
    }
    let n = finished.len();
    let mut g = Generalized { labels: Vec::with_capacity(n), successors: vec![Vec::new(); n], ..Default::default() };
    for (i, node) in finished.iter().enumerate() {
        let mut cube = Cube::TRUE;
        for &f in &node.old {
            if let Node::Lit { ap, positive } = arena.node(f) {
                cube = cube.with(ap, positive);
            }
        }
        g.labels.push(cube);
        for &from in &node.incoming {
            if from == INIT {
                g.initial.push(i);
            } else {
                g.successors[from].push(i);
            }
        }
    }
    // One acceptance set per until subformula promised somewhere.
    let untils: BTreeSet<Id> = finished
        .iter()
        .flat_map(|f| f.old.iter().copied())
        .filter(|&f| matches!(arena.node(f), Node::Until(..)))
        .collect();
    for u in untils {
        let Node::Until(_, b) = arena.node(u) else { unreachable!() };
        g.acceptance.push(finished.iter().map(|f| !f.old.contains(&u) || f.old.contains(&b)).collect());
    }
    g
}
