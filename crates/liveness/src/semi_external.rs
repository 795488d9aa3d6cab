//! Semi-external LTL model checking (Edelkamp, Sulewski and Jabbar, "Minimal perfect
//! hashing for semi-external LTL model checking", 2008): the product's states are
//! enumerated first by a breadth-first search on disk ([`warpcheck_explore::disk`]);
//! a minimal perfect hash of them ([`perfect`]) then gives every state an index, and
//! nested depth-first search keeps its colours in two bits per index. In memory: the
//! hash (about three bits per state), the colours (two), and the top frames of the
//! search stacks ([`stack`]: past a bound their bottom frames move to disk too); the
//! states themselves stay on disk.
//!
//! The nested search is that of [`crate::ndfs`] (Schwoon and Esparza's colours), with
//! states on its stacks instead of ids; a cycle is read off the stacks the same way.
//! Steps that raise an evaluation error are dropped (see [`crate::product`]).

mod perfect;
mod stack;

use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use warpcheck_explore::disk::{buffer_for, explore_on_disk, DiskError, DiskOptions};
use warpcheck_explore::{Lasso, Throttle};
use warpcheck_model::interface::{Model, Successors as _};

use crate::{LtlError, Options, Outcome};

pub use perfect::PerfectHash;
use stack::Stack;

const WHITE: u64 = 0;
const CYAN: u64 = 1;
const BLUE: u64 = 2;
const RED: u64 = 3;

/// The semi-external search's disk and memory.
#[derive(Clone, Debug)]
pub struct DiskUse {
    /// The most bytes of disk the state files took at once, and the search stacks'
    /// frames on disk at their most.
    pub disk_bytes: u64,
    /// Of those, the search stacks' (the blue and the red one's most).
    pub stack_disk_bytes: u64,
    /// Bytes of the perfect hash, and of the colours.
    pub hash_bytes: u64,
    pub colour_bytes: u64,
}

/// Checks the property of `model` semi-externally: the disk search's files in
/// `options.dir`, its buffer half of `options.memory`, each search stack at most a
/// quarter of the buffer in memory (the rest on disk there); `options.max_states`
/// applies to the disk search, `options.progress` to both searches (the nested one
/// reports the states it visited, the successors it tried and its depth).
pub fn check_semi_external<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    if model.property().is_none() {
        return Err(LtlError::NoProperty);
    }
    let start = Instant::now();
    let throttle = options.progress.clone().map(Throttle::new);
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
    let dir = explored.dir.path();
    let mut search = Search::new(model, hash, buffer / 4, dir, throttle);
    let cycle = search.run(&model.initial_state()).map_err(|e| LtlError::Disk(DiskError::io(dir, e)))?;
    let lasso = cycle.map(|(stem, cycle)| Lasso::build(model, &stem, &cycle));
    let stack_disk_bytes = search.blue.peak_disk_bytes + search.red.peak_disk_bytes;
    let disk = DiskUse {
        disk_bytes: explored.disk_bytes + stack_disk_bytes,
        stack_disk_bytes,
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

struct Search<'m, M: Model> {
    model: &'m M,
    generator: M::Successors<'m>,
    hash: PerfectHash,
    /// Two bits per state index.
    colours: Vec<u64>,
    words: usize,
    blue: Stack,
    red: Stack,
    /// Where the stacks' bottom frames go.
    dir: PathBuf,
    /// A successor on its way from a stack's successors onto the stack.
    scratch: Vec<u32>,
    /// Where the blue search reports the states it visited and the successors it
    /// tried.
    progress: Option<Throttle>,
    visited: u64,
    tried: u64,
}

impl<'m, M: Model> Search<'m, M> {
    /// A search with at most about `stack_bytes` of each stack in memory, the rest in
    /// files in `dir`, reporting to `progress`.
    fn new(model: &'m M, hash: PerfectHash, stack_bytes: usize, dir: &Path, progress: Option<Throttle>) -> Self {
        let colours = vec![0u64; (hash.states() as usize).div_ceil(32)];
        let words = model.state_words();
        let (blue, red) = (Stack::new(words, stack_bytes), Stack::new(words, stack_bytes));
        let (generator, dir, scratch) = (model.successors(), dir.to_owned(), Vec::new());
        Search { model, generator, hash, colours, words, blue, red, dir, scratch, progress, visited: 0, tried: 0 }
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
    fn push(&mut self, state: &[u32], index: u64, red: bool) -> io::Result<()> {
        let stack = if red { &mut self.red } else { &mut self.blue };
        let (generator, hash, words) = (&mut self.generator, &mut self.hash, self.words);
        stack.push(state, index, &self.dir, |succ, succ_index| {
            let start = succ.len();
            generator.successors(state, |_, result| {
                if let Ok(target) = result {
                    succ.extend_from_slice(target);
                }
            });
            succ_index.extend(succ[start..].chunks_exact(words.max(1)).map(|t| hash.index(t)));
        })
    }

    /// The nested search from `root`: an accepting cycle's stem and cycle (states).
    fn run(&mut self, root: &[u32]) -> io::Result<Option<StateCycle>> {
        let i = self.hash.index(root);
        self.paint(i, CYAN);
        self.push(root, i, false)?;
        while let Some(top) = self.blue.top() {
            if top.next < top.end {
                let (j, s_index) = (top.next, top.index);
                top.next += 1;
                self.tried += 1;
                let (t, t_index) = self.blue.successor(j);
                match self.colour(t_index) {
                    CYAN => {
                        let t_accepting = self.model.is_accepting(t);
                        if self.model.is_accepting(self.blue.top_state()) || t_accepting {
                            return self.blue_cycle(s_index, t_index, t_accepting).map(Some);
                        }
                    }
                    WHITE => {
                        self.paint(t_index, CYAN);
                        self.push_successor(j, t_index, false)?;
                        self.visited += 1;
                        if let Some(p) = self.progress.as_ref().filter(|_| self.visited.is_multiple_of(4096)) {
                            p.report(self.visited, self.tried, self.blue.depth().min(u32::MAX as usize) as u32, true);
                        }
                    }
                    _ => {}
                }
            } else {
                let index = top.index;
                if self.model.is_accepting(self.blue.top_state()) {
                    let v = self.blue.top_state().to_vec();
                    if let Some(cycle) = self.red_search(&v, index)? {
                        return Ok(Some(cycle));
                    }
                    self.paint(index, RED);
                } else {
                    self.paint(index, BLUE);
                }
                self.blue.pop()?;
            }
        }
        Ok(None)
    }

    /// The red search from `seed`, the top of the blue stack.
    fn red_search(&mut self, seed: &[u32], seed_index: u64) -> io::Result<Option<StateCycle>> {
        self.push(seed, seed_index, true)?;
        while let Some(top) = self.red.top() {
            if top.next < top.end {
                let j = top.next;
                top.next += 1;
                let t_index = self.red.successor(j).1;
                match self.colour(t_index) {
                    CYAN => {
                        // seed →(red path)→ t →(blue stack)→ seed.
                        let states = |frames: Vec<(u64, Vec<u32>)>| frames.into_iter().map(|(_, s)| s);
                        let mut cycle: Vec<Vec<u32>> = states(self.red.frames_from(0)?).collect();
                        let at = self.on_blue_stack(t_index)?;
                        cycle.extend(states(self.blue.frames_from(at)?));
                        let stem = states(self.blue.frames_from(0)?).collect();
                        self.red.clear()?;
                        return Ok(Some((stem, cycle)));
                    }
                    BLUE => {
                        self.paint(t_index, RED);
                        self.push_successor(j, t_index, true)?;
                    }
                    _ => {}
                }
            } else {
                self.red.pop()?;
            }
        }
        Ok(None)
    }

    /// Pushes the `j`-th successor of the blue (`red` false) or red stack, of index
    /// `index`, on the same stack (copied out through `scratch` first, since pushing
    /// may move the successors).
    fn push_successor(&mut self, j: usize, index: u64, red: bool) -> io::Result<()> {
        let mut t = std::mem::take(&mut self.scratch);
        t.clear();
        t.extend_from_slice((if red { &self.red } else { &self.blue }).successor(j).0);
        let pushed = self.push(&t, index, red);
        self.scratch = t;
        pushed
    }

    /// The depth of the cyan state of index `t` on the blue stack.
    fn on_blue_stack(&self, t: u64) -> io::Result<usize> {
        Ok(self.blue.position(t)?.expect("a cyan state is on the blue stack"))
    }

    /// The cycle closed by the blue edge `s → t` (`s` on top of the stack, `t` cyan,
    /// one of them accepting), starting at the accepting one (as
    /// [`crate::ndfs::cycle_closed_on_stack`]).
    fn blue_cycle(&self, s: u64, t: u64, t_accepting: bool) -> io::Result<StateCycle> {
        let all: Vec<Vec<u32>> = self.blue.frames_from(0)?.into_iter().map(|(_, state)| state).collect();
        let (at, top) = (self.on_blue_stack(t)?, all.len() - 1);
        debug_assert_eq!(self.blue.frames_from(top)?[0].0, s);
        Ok(if t_accepting {
            // t → ... → s → t along the stack.
            let cycle = all[at..=top].iter().cloned().chain([all[at].clone()]).collect();
            (all[..=at].to_vec(), cycle)
        } else {
            // s → t → ... → s along the stack.
            let cycle = [all[top].clone()].into_iter().chain(all[at..=top].iter().cloned()).collect();
            (all, cycle)
        })
    }
}
