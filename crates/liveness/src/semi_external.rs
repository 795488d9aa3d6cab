//! Semi-external LTL model checking (Edelkamp, Sulewski and Jabbar, "Minimal perfect
//! hashing for semi-external LTL model checking", 2008): the product's states are
//! enumerated first by a breadth-first search on disk ([`warpcheck_explore::disk`]);
//! a minimal perfect hash of them ([`perfect`]) then gives every state an index, and
//! nested depth-first search keeps its colours in two bits per index. In memory: the
//! hash (about three bits per state), the colours (two), and the search stacks, which
//! hold their states in full; the states themselves stay on disk.
//!
//! The nested search is that of [`crate::ndfs`] (Schwoon and Esparza's colours), with
//! states on its stacks instead of ids; a cycle is read off the stacks the same way.
//! Steps that raise an evaluation error are dropped (see [`crate::product`]).

mod perfect;

use std::time::Instant;

use warpcheck_explore::disk::{buffer_for, explore_on_disk, DiskOptions};
use warpcheck_explore::Lasso;
use warpcheck_model::interface::{Model, Successors as _};

use crate::{LtlError, Options, Outcome};

pub use perfect::PerfectHash;

const WHITE: u64 = 0;
const CYAN: u64 = 1;
const BLUE: u64 = 2;
const RED: u64 = 3;

/// The semi-external search's disk and memory.
#[derive(Clone, Debug)]
pub struct DiskUse {
    /// The most bytes of disk the state files took at once.
    pub disk_bytes: u64,
    /// Bytes of the perfect hash, and of the colours.
    pub hash_bytes: u64,
    pub colour_bytes: u64,
}

/// Checks the property of `model` semi-externally: the disk search's files in
/// `options.dir`, its buffer half of `options.memory`; `options.max_states` and
/// `options.progress` apply to the disk search.
pub fn check_semi_external<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    if model.property().is_none() {
        return Err(LtlError::NoProperty);
    }
    let start = Instant::now();
    let buffer = buffer_for(options.memory);
    let disk_options = DiskOptions {
        dir: options.dir.clone().unwrap_or_else(std::env::temp_dir),
        buffer,
        max_states: options.max_states,
        progress: options.progress.clone(),
    };
    let explored = explore_on_disk(model, &disk_options).map_err(LtlError::Disk)?;
    let hash = PerfectHash::build(&explored.visited, buffer / 16)?;
    let graph_seconds = start.elapsed().as_secs_f64();
    let mut search = Search::new(model, hash);
    let cycle = search.run(&model.initial_state());
    let lasso = cycle.map(|(stem, cycle)| Lasso::build(model, &stem, &cycle));
    let disk = DiskUse {
        disk_bytes: explored.disk_bytes,
        hash_bytes: search.hash.bytes(),
        colour_bytes: search.colours.len() as u64 * 8,
    };
    Ok(Outcome {
        lasso,
        // The error state is not a product state here (as in the other searches).
        states: explored.visited.len(),
        transitions: explored.transitions,
        error_transitions: explored.error_transitions,
        iterations: None,
        remaining: None,
        graph_seconds: Some(graph_seconds),
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
        table_growths: None,
        disk: Some(disk),
    })
}

/// An accepting cycle: the stem's states and the cycle's (see [`crate::Cycle`]).
type StateCycle = (Vec<Vec<u32>>, Vec<Vec<u32>>);

/// A frame of a search stack: its state is the `i`-th of the stack's states, its
/// successors are `succ[start..end]` (each `words` words, with their indices in
/// `succ_index`), the next to try is `next`.
struct Frame {
    index: u64,
    start: usize,
    next: usize,
    end: usize,
}

/// One stack: frames, their states (`words` each, in stack order), and their
/// successors.
#[derive(Default)]
struct Stack {
    frames: Vec<Frame>,
    states: Vec<u32>,
    succ: Vec<u32>,
    succ_index: Vec<u64>,
}

impl Stack {
    fn state(&self, i: usize, words: usize) -> &[u32] {
        &self.states[i * words..(i + 1) * words]
    }

    fn pop(&mut self, words: usize) {
        let frame = self.frames.pop().expect("a frame to pop");
        self.states.truncate(self.frames.len() * words);
        self.succ.truncate(frame.start * words);
        self.succ_index.truncate(frame.start);
    }

    fn clear(&mut self) {
        *self = Stack::default();
    }
}

struct Search<'m, M: Model> {
    model: &'m M,
    generator: M::Successors<'m>,
    hash: PerfectHash,
    /// Two bits per state index.
    colours: Vec<u64>,
    words: usize,
    blue: Stack,
    red: Stack,
    /// A successor on its way from a stack's successors onto the stack.
    scratch: Vec<u32>,
}

impl<'m, M: Model> Search<'m, M> {
    fn new(model: &'m M, hash: PerfectHash) -> Self {
        let colours = vec![0u64; (hash.states() as usize).div_ceil(32)];
        let (blue, red) = (Stack::default(), Stack::default());
        let words = model.state_words();
        Search { model, generator: model.successors(), hash, colours, words, blue, red, scratch: Vec::new() }
    }

    fn colour(&self, i: u64) -> u64 {
        self.colours[(i / 32) as usize] >> (2 * (i % 32)) & 3
    }

    fn paint(&mut self, i: u64, colour: u64) {
        let word = &mut self.colours[(i / 32) as usize];
        let shift = 2 * (i % 32);
        *word = *word & !(3 << shift) | colour << shift;
    }

    /// Pushes `state` (of index `index`) on the blue (`red` false) or red stack, with
    /// its successors.
    fn push(&mut self, state: &[u32], index: u64, red: bool) {
        let stack = if red { &mut self.red } else { &mut self.blue };
        let start = stack.succ_index.len();
        stack.states.extend_from_slice(state);
        let succ = &mut stack.succ;
        self.generator.successors(state, |_, result| {
            if let Ok(target) = result {
                succ.extend_from_slice(target);
            }
        });
        let words = self.words;
        for i in start..succ.len() / words.max(1) {
            let t = &succ[i * words..(i + 1) * words];
            stack.succ_index.push(self.hash.index(t));
        }
        let end = stack.succ_index.len();
        stack.frames.push(Frame { index, start, next: start, end });
    }

    /// The nested search from `root`: an accepting cycle's stem and cycle (states).
    fn run(&mut self, root: &[u32]) -> Option<StateCycle> {
        let w = self.words;
        let i = self.hash.index(root);
        self.paint(i, CYAN);
        self.push(root, i, false);
        while let Some(top) = self.blue.frames.last_mut() {
            if top.next < top.end {
                let (j, s_index) = (top.next, top.index);
                top.next += 1;
                let t_index = self.blue.succ_index[j];
                match self.colour(t_index) {
                    CYAN => {
                        let s = self.blue.state(self.blue.frames.len() - 1, w);
                        let t_accepting = self.model.is_accepting(&self.blue.succ[j * w..(j + 1) * w]);
                        if self.model.is_accepting(s) || t_accepting {
                            return Some(self.blue_cycle(s_index, t_index, t_accepting));
                        }
                    }
                    WHITE => {
                        self.paint(t_index, CYAN);
                        self.push_successor(j, t_index, false);
                    }
                    _ => {}
                }
            } else {
                let index = top.index;
                let depth = self.blue.frames.len() - 1;
                if self.model.is_accepting(self.blue.state(depth, w)) {
                    let v = self.blue.state(depth, w).to_vec();
                    if let Some(cycle) = self.red_search(&v, index) {
                        return Some(cycle);
                    }
                    self.paint(index, RED);
                } else {
                    self.paint(index, BLUE);
                }
                self.blue.pop(w);
            }
        }
        None
    }

    /// The red search from `seed`, the top of the blue stack.
    fn red_search(&mut self, seed: &[u32], seed_index: u64) -> Option<StateCycle> {
        let w = self.words;
        self.push(seed, seed_index, true);
        while let Some(top) = self.red.frames.last_mut() {
            if top.next < top.end {
                let j = top.next;
                top.next += 1;
                let t_index = self.red.succ_index[j];
                match self.colour(t_index) {
                    CYAN => {
                        // seed →(red path)→ t →(blue stack)→ seed.
                        let mut cycle: Vec<Vec<u32>> =
                            (0..self.red.frames.len()).map(|k| self.red.state(k, w).to_vec()).collect();
                        let at = self.on_blue_stack(t_index);
                        cycle.extend((at..self.blue.frames.len()).map(|k| self.blue.state(k, w).to_vec()));
                        let stem = (0..self.blue.frames.len()).map(|k| self.blue.state(k, w).to_vec()).collect();
                        self.red.clear();
                        return Some((stem, cycle));
                    }
                    BLUE => {
                        self.paint(t_index, RED);
                        self.push_successor(j, t_index, true);
                    }
                    _ => {}
                }
            } else {
                self.red.pop(w);
            }
        }
        None
    }

    /// Pushes the `j`-th successor of the blue (`red` false) or red stack, of index
    /// `index`, on the same stack (copied out through `scratch` first, since pushing
    /// may move the successors).
    fn push_successor(&mut self, j: usize, index: u64, red: bool) {
        let w = self.words;
        let mut t = std::mem::take(&mut self.scratch);
        t.clear();
        t.extend_from_slice(&(if red { &self.red } else { &self.blue }).succ[j * w..(j + 1) * w]);
        self.push(&t, index, red);
        self.scratch = t;
    }

    /// The position of the cyan state of index `t` on the blue stack.
    fn on_blue_stack(&self, t: u64) -> usize {
        self.blue.frames.iter().rposition(|f| f.index == t).expect("a cyan state is on the blue stack")
    }

    /// The cycle closed by the blue edge `s → t` (`s` on top of the stack, `t` cyan,
    /// one of them accepting), starting at the accepting one (as
    /// [`crate::ndfs::cycle_closed_on_stack`]).
    fn blue_cycle(&self, s: u64, t: u64, t_accepting: bool) -> StateCycle {
        let w = self.words;
        let state = |k: usize| self.blue.state(k, w).to_vec();
        let (at, top) = (self.on_blue_stack(t), self.blue.frames.len() - 1);
        debug_assert_eq!(self.blue.frames[top].index, s);
        if t_accepting {
            // t → ... → s → t along the stack.
            let cycle = (at..=top).map(state).chain([state(at)]).collect();
            ((0..=at).map(state).collect(), cycle)
        } else {
            // s → t → ... → s along the stack.
            let cycle = [state(top)].into_iter().chain((at..=top).map(state)).collect();
            ((0..=top).map(state).collect(), cycle)
        }
    }
}
