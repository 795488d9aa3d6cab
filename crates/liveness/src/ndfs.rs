//! Nested depth-first search for accepting cycles, in the colour-based form of
//! Schwoon and Esparza ("A note on on-the-fly verification algorithms", TACAS 2005,
//! Fig. 3; the thesis digest's Algorithm 2 is the original Courcoubetis et al. form).
//!
//! The blue search colours a state cyan while it is on the stack and blue (or red, for
//! an accepting state) when done. It reports a cycle at once when an edge closes a
//! cycle through the stack at an accepting state (`s → t`, `t` cyan, `s` or `t`
//! accepting). In post-order, each accepting seed starts a red search, which visits
//! blue states only, colours them red, and reports a cycle when it reaches any cyan
//! state: that state leads back to the seed along the blue stack. Every state is
//! visited at most once by each search: O(|V| + |E|) time, two bits per state.
//!
//! Departures from the paper: both searches are iterative (explicit stacks of frames
//! with successor lists in one shared buffer each), never recursive, since state
//! spaces have millions of states and stacks as deep; the red search of a seed runs
//! while the seed's frame is still on the blue stack, so the cycle can be read off the
//! two stacks. Successors are generated once per search (the red search regenerates
//! them, as in the paper), which keeps memory to the stacks and the colours.

use crate::order::Order;
use crate::product::Successors;
use crate::LtlError;
use warpcheck_explore::{ProgressHook, Throttle};

const WHITE: u8 = 0;
const CYAN: u8 = 1;
const BLUE: u8 = 2;
const RED: u8 = 3;

/// An accepting cycle and the way to it, as vertex ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// From the search's root to the cycle's first vertex (inclusive).
    pub stem: Vec<u32>,
    /// The cycle: its first vertex, ..., and that vertex again. Some vertex of it is
    /// accepting (the first one, when the cycle comes from a red search).
    pub cycle: Vec<u32>,
}

struct Frame {
    v: u32,
    /// The vertex's successors are `buffer[start..end]`; the next to try is `next`.
    start: usize,
    next: usize,
    end: usize,
}

/// The state of a nested DFS over one graph: colours survive between searches from
/// several roots (states finished by one search are not searched again).
#[derive(Default)]
pub struct Ndfs {
    colour: Vec<u8>,
    blue: Vec<Frame>,
    blue_succ: Vec<u32>,
    red: Vec<Frame>,
    red_succ: Vec<u32>,
    /// Vertices the blue search visited.
    pub visited: u64,
    /// Vertices the red searches visited (seeds not counted).
    pub red_visited: u64,
    /// Edges the blue search followed.
    pub edges: u64,
    /// The order in which the blue search follows a state's successors.
    order: Order,
    /// Where the blue search reports (states, edges followed, stack depth).
    progress: Option<Throttle>,
}

impl Ndfs {
    pub fn new() -> Ndfs {
        Ndfs::default()
    }

    /// The blue search follows each state's successors in the random order of `seed`
    /// (see [`crate::Options::seed`]).
    pub fn seeded(self, seed: u64) -> Ndfs {
        Ndfs { order: Order::seeded(seed), ..self }
    }

    /// Reports the states generated, the edges followed and the depth of the blue
    /// stack to `hook` as the search goes.
    pub fn with_progress(self, hook: ProgressHook) -> Ndfs {
        Ndfs { progress: Some(Throttle::new(hook)), ..self }
    }

    /// Searches for an accepting cycle reachable from `root` (not already searched).
    /// After a cycle is found the colours are those of an interrupted search: do not
    /// search again with the same `Ndfs`.
    pub fn search<G: Successors>(&mut self, g: &mut G, root: u32) -> Result<Option<Cycle>, LtlError> {
        self.grow(g);
        if self.colour[root as usize] != WHITE {
            return Ok(None);
        }
        self.push_blue(g, root)?;
        while let Some(top) = self.blue.last_mut() {
            if top.next < top.end {
                let (s, t) = (top.v, self.blue_succ[top.next]);
                top.next += 1;
                self.edges += 1;
                match self.colour[t as usize] {
                    CYAN if g.is_accepting(s) || g.is_accepting(t) => return Ok(Some(self.blue_cycle(g, s, t))),
                    WHITE => self.push_blue(g, t)?,
                    _ => {}
                }
            } else {
                let v = top.v;
                if g.is_accepting(v) {
                    if let Some(cycle) = self.red_search(g, v)? {
                        return Ok(Some(cycle));
                    }
                    self.colour[v as usize] = RED;
                } else {
                    self.colour[v as usize] = BLUE;
                }
                let frame = self.blue.pop().expect("the loop holds a frame");
                self.blue_succ.truncate(frame.start);
            }
        }
        Ok(None)
    }

    fn grow<G: Successors>(&mut self, g: &G) {
        if self.colour.len() < g.vertices() {
            self.colour.resize(g.vertices(), WHITE);
        }
    }

    fn push_blue<G: Successors>(&mut self, g: &mut G, v: u32) -> Result<(), LtlError> {
        self.colour[v as usize] = CYAN;
        self.visited += 1;
        if self.visited.is_multiple_of(4096) {
            if let Some(p) = &self.progress {
                p.report(g.vertices() as u64, self.edges, self.blue.len() as u32, true);
            }
        }
        let start = self.blue_succ.len();
        g.successors(v, &mut self.blue_succ)?;
        self.order.arrange(&mut self.blue_succ[start..]);
        self.grow(g);
        self.blue.push(Frame { v, start, next: start, end: self.blue_succ.len() });
        Ok(())
    }

    fn push_red<G: Successors>(&mut self, g: &mut G, v: u32) -> Result<(), LtlError> {
        let start = self.red_succ.len();
        g.successors(v, &mut self.red_succ)?;
        self.grow(g);
        self.red.push(Frame { v, start, next: start, end: self.red_succ.len() });
        Ok(())
    }

    /// The red search from `seed`, the top of the blue stack.
    fn red_search<G: Successors>(&mut self, g: &mut G, seed: u32) -> Result<Option<Cycle>, LtlError> {
        self.push_red(g, seed)?;
        while let Some(top) = self.red.last_mut() {
            if top.next < top.end {
                let t = self.red_succ[top.next];
                top.next += 1;
                match self.colour[t as usize] {
                    CYAN => {
                        // seed →(red path)→ t →(blue stack)→ seed.
                        let mut cycle: Vec<u32> = self.red.iter().map(|f| f.v).collect();
                        cycle.push(t);
                        cycle.extend(self.blue_after(t));
                        let stem = self.blue.iter().map(|f| f.v).collect();
                        self.red.clear();
                        return Ok(Some(Cycle { stem, cycle }));
                    }
                    BLUE => {
                        self.colour[t as usize] = RED;
                        self.red_visited += 1;
                        self.push_red(g, t)?;
                    }
                    _ => {}
                }
            } else {
                let frame = self.red.pop().expect("the loop holds a frame");
                self.red_succ.truncate(frame.start);
            }
        }
        Ok(None)
    }

    /// The blue stack's vertices after the cyan vertex `t`, up to the top.
    fn blue_after(&self, t: u32) -> impl Iterator<Item = u32> + '_ {
        let at = self.blue.iter().rposition(|f| f.v == t).expect("a cyan vertex is on the blue stack");
        self.blue[at + 1..].iter().map(|f| f.v)
    }

    /// The cycle closed by the blue edge `s → t` (`s` on top of the stack, `t` cyan,
    /// one of them accepting), starting at the accepting one.
    fn blue_cycle<G: Successors>(&self, g: &G, s: u32, t: u32) -> Cycle {
        let stack: Vec<u32> = self.blue.iter().map(|f| f.v).collect();
        cycle_closed_on_stack(stack, s, t, g.is_accepting(t))
    }
}

/// The cycle closed by an edge `s → t` of a blue search whose stack is `stack` (`s` on
/// top, `t` on it, `s` or `t` accepting): it starts at the accepting one, the stem is
/// the stack up to it.
pub(crate) fn cycle_closed_on_stack(stack: Vec<u32>, s: u32, t: u32, t_accepting: bool) -> Cycle {
    let at = stack.iter().rposition(|&v| v == t).expect("a cyan vertex is on the blue stack");
    if t_accepting {
        // t → ... → s → t along the stack.
        let mut cycle = stack[at..].to_vec();
        cycle.push(t);
        Cycle { stem: stack[..=at].to_vec(), cycle }
    } else {
        // s → t → ... → s along the stack.
        let mut cycle = vec![s, t];
        cycle.extend_from_slice(&stack[at + 1..]);
        Cycle { stem: stack, cycle }
    }
}
