//! The disk search's order of ties: distinct states with one 64-bit hash (the files'
//! order is by hash, then by state). Real models practically never reach them, so this
//! test makes them: pairs of 3-word states whose hashes collide, found by search, laid
//! out as the levels of a small model. Each level's successors are the whole next
//! level and the whole previous one, so every state is generated many times (ties in
//! the sorted runs), looked up while its twin is in the visited set (a tie between a
//! new and a visited state), and a tie straddles a block of the visited set's index.

use std::collections::HashMap;

use warpcheck_explore::disk::records::{hash, order};
use warpcheck_explore::disk::{explore_on_disk, DiskOptions};
use warpcheck_model::{Describe, EvalError, Label, LabelId, Model, Step, Successors};

type State = [u32; 3];

/// Pairs of distinct 3-word states with equal hashes. The hash mixes the words in
/// turn, the last into the low half of what the first two made: two pairs of first
/// words whose mixed values agree above the low 32 bits (a birthday search over random
/// pairs) take last words that cancel the rest.
fn colliding_pairs(want: usize) -> Vec<(State, State)> {
    // What the last word is mixed into (as `hash` computes it).
    let mix = |w: [u32; 2]| {
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
        for x in w {
            h = (h.rotate_left(23) ^ u64::from(x)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        }
        h.rotate_left(23)
    };
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut by_high: HashMap<u32, [u32; 2]> = HashMap::new();
    let mut pairs = Vec::new();
    while pairs.len() < want {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let w = [rng as u32, (rng >> 32) as u32];
        let m = mix(w);
        match by_high.insert((m >> 32) as u32, w) {
            Some(other) if other != w => {
                let low = (m ^ mix(other)) as u32;
                // [w, x] and [other, x ^ low] enter the last step with the same value.
                let (a, b) = ([w[0], w[1], 1], [other[0], other[1], 1 ^ low]);
                assert_eq!(hash(&a), hash(&b), "the test's idea of the hash is the search's");
                pairs.push((a, b));
            }
            _ => {}
        }
    }
    pairs
}

/// A model whose levels are given: a state's successors are all states of the next
/// level and of the one before.
struct Levels {
    levels: Vec<Vec<State>>,
    level_of: HashMap<State, usize>,
}

impl Levels {
    fn new(levels: Vec<Vec<State>>) -> Levels {
        let level_of = levels.iter().enumerate().flat_map(|(k, l)| l.iter().map(move |&s| (s, k))).collect();
        Levels { levels, level_of }
    }

    fn neighbours(&self, k: usize) -> impl Iterator<Item = &State> {
        let before = k.checked_sub(1).map_or(&[][..], |b| &self.levels[b][..]);
        self.levels.get(k + 1).map_or(&[][..], |l| &l[..]).iter().chain(before)
    }
}

struct Steps<'a>(&'a Levels);

impl Successors for Steps<'_> {
    fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, s: &[u32], mut emit: F) -> bool {
        let k = self.0.level_of[&[s[0], s[1], s[2]]];
        let mut any = false;
        for next in self.0.neighbours(k) {
            emit(Step::of(&[0]), Ok(next));
            any = true;
        }
        !any
    }
}

impl Describe for Levels {
    fn describe_step(&self, _: &Step<'_>) -> String {
        "step".into()
    }
    fn describe_error(&self, e: &EvalError) -> String {
        e.to_string()
    }
    fn describe_changes(&self, _: &[u32], b: &[u32]) -> Vec<String> {
        vec![format!("s = {b:?}")]
    }
    fn describe_state(&self, s: &[u32]) -> Vec<String> {
        vec![format!("s = {s:?}")]
    }
}

impl Model for Levels {
    type Successors<'a> = Steps<'a>;
    fn state_words(&self) -> usize {
        3
    }
    fn initial_state(&self) -> Vec<u32> {
        self.levels[0][0].to_vec()
    }
    fn successors(&self) -> Steps<'_> {
        Steps(self)
    }
    fn labels(&self) -> Vec<Label> {
        vec![]
    }
    fn label(&self, _: &[u32], _: LabelId) -> Result<bool, EvalError> {
        Ok(false)
    }
    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }
    fn property(&self) -> Option<&str> {
        None
    }
}

/// States in the files' order.
fn sorted(states: &[State]) -> Vec<State> {
    let mut v = states.to_vec();
    v.sort_by(|a, b| order(a, b));
    v
}

#[test]
fn colliding_states_are_kept_apart_and_counted_once() {
    let pairs = colliding_pairs(700);
    // Level 1: both states of 600 pairs and a filler; level 2: the first states of 100
    // more pairs; level 3: their twins. The filler is chosen so that, once level 1 is
    // merged with level 0 in the visited set, a pair straddles the first block
    // boundary of its index (1,024 states).
    let both: Vec<State> = pairs[..600].iter().flat_map(|&(a, b)| [a, b]).collect();
    let straddles = |l0: State, filler: State| {
        let mut first = both.clone();
        first.extend([l0, filler]);
        let s = sorted(&first);
        hash(&s[1023]) == hash(&s[1024])
    };
    let l0 = [7, 7, 7];
    let filler = (0..).map(|i| [u32::MAX, i, 0]).find(|&f| straddles(l0, f)).expect("a filler");
    let mut level1 = both.clone();
    level1.push(filler);
    let level2: Vec<State> = pairs[600..].iter().map(|p| p.0).collect();
    let level3: Vec<State> = pairs[600..].iter().map(|p| p.1).collect();
    let model = Levels::new(vec![vec![l0], level1, level2, level3]);
    let sizes: Vec<u64> = model.levels.iter().map(|l| l.len() as u64).collect();
    let states: u64 = sizes.iter().sum();
    let transitions: u64 = (0..sizes.len())
        .map(|k| sizes[k] * (sizes.get(k + 1).unwrap_or(&0) + k.checked_sub(1).map_or(0, |b| sizes[b])))
        .sum();
    let dir = tempfile::tempdir().unwrap();
    // Buffers from 128 states (thousands of runs a level) to all of them.
    for buffer in [1 << 10, 1 << 14, 1 << 20] {
        let options = DiskOptions { dir: dir.path().to_owned(), buffer, max_states: None, progress: None };
        let got = explore_on_disk(&model, &options).expect("the search finishes");
        assert_eq!((got.states, got.transitions, got.levels), (states, transitions, 4), "buffer {buffer}");
        assert_eq!(got.deadlocks, 0);
        // The visited file: every state once, in the files' order.
        let all: Vec<State> = model.levels.concat();
        let mut r = got.visited.reader().unwrap();
        for s in sorted(&all) {
            assert_eq!(r.current(), Some(&s[..]), "buffer {buffer}");
            r.advance().unwrap();
        }
        assert_eq!(r.current(), None);
    }
}
