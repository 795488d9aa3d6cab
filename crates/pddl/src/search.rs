//! Optimal search over a grounded [`Task`]: A* guided by a heuristic of
//! [`crate::heuristic`] (f-value buckets in a `BTreeMap`, since costs can be sparse and
//! large; the goal tested when a state is taken, which keeps it exact with zero-cost
//! actions; states reopened when reached more cheaply), of which uniform-cost search is
//! the case h = 0; and breadth-first search when every action costs 1 and no heuristic
//! is asked for (goal tested when a state is generated). States are stored once in an
//! arena of `u32` words, found through a `hashbrown` table (of the states themselves up
//! to 8 words, of their ids beyond); parent links give the plan. The search itself is
//! sequential but for blind search, which expands chunks of states on all threads
//! (module `parallel`: breadth-first with the same store, counters and plan as on one;
//! uniform-cost by buckets of equal `g`, the same cost); A* expands a batch of states
//! of the least f at a time, generating and looking up their successors and computing
//! the new states' heuristic values on several threads ([`SearchOptions::threads`]; the
//! pattern databases' tables too). A
//! bound on stored states ends the search with [`SearchError::StateLimit`], never by
//! dropping states.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hashbrown::HashTable;

use crate::heuristic::{Evaluator, Heuristic};
use crate::task::{State, Task};

pub mod gpu;
mod parallel;

/// The heuristic and the limits of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// The most states to store; `None` for no bound.
    pub max_states: Option<usize>,
    /// When to give up; `None` for no time limit.
    pub deadline: Option<Instant>,
    /// What guides the search: [`Heuristic::Blind`] searches breadth first or by
    /// uniform cost, the others run A*.
    pub heuristic: Heuristic,
    /// Threads of the current rayon pool that expand states (blind search) or evaluate
    /// the heuristic (the new states of a batch of expansions at once); 0 or 1: the
    /// calling thread alone.
    pub threads: usize,
}

/// A finished search: an optimal plan, or none when the reachable states are
/// exhausted without reaching the goal (the default: nothing found yet).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    /// Action indices of an optimal plan; `None` when the task is unsolvable.
    pub plan: Option<Vec<usize>>,
    /// The plan's cost.
    pub cost: Option<u64>,
    /// States expanded (their successors computed).
    pub expanded: u64,
    /// Successors generated (duplicates included).
    pub generated: u64,
    /// Distinct states stored.
    pub stored: usize,
    /// Time spent before the first expansion: the heuristic's tables built and, on a
    /// GPU, the device opened, its kernels compiled and its memory allocated.
    pub setup: Duration,
    /// The part of it that built the heuristic's tables (on a GPU, while the device
    /// opened and the kernels compiled).
    pub heuristic: Duration,
}

/// A search that ran out of room.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// More states than the bound would have to be stored.
    #[error("state limit of {limit} states reached after {expanded} expansions (raise it to search further)")]
    StateLimit {
        /// The bound.
        limit: usize,
        /// States expanded when it was reached.
        expanded: u64,
    },
    /// The deadline passed.
    #[error("time limit reached after {expanded} expansions")]
    TimeLimit {
        /// States expanded when it passed.
        expanded: u64,
    },
    /// A numeric effect's result leaves the `i32` range that a state word holds.
    #[error(
        "the numeric fluent `{fluent}` would take the value {value} after `{action}`, outside the range of \
         32-bit integers that the search's states hold{unit}"
    )]
    OutOfRange {
        /// The fluent, `(f objects...)`.
        fluent: String,
        /// The value it would take (exact).
        value: String,
        /// The units the states hold it in, when not whole numbers: ` (in units of 1/N)`.
        unit: String,
        /// The action, `(a objects...)`.
        action: String,
    },
}

impl SearchError {
    /// The error of action `a`'s numeric effect out of range, `e`.
    pub fn out_of_range(task: &Task, a: u32, e: crate::task::OutOfRange) -> SearchError {
        SearchError::OutOfRange {
            fluent: task.numeric[e.var as usize].name.clone(),
            value: task.value(e.value),
            unit: if task.scale > 1 { format!(" (in units of 1/{})", task.scale) } else { String::new() },
            action: task.actions[a as usize].name.clone(),
        }
    }
}

/// `Err` when the deadline has passed: read at the first expansion and every 1024th
/// after in a blind search, at every expansion with a heuristic (whose evaluations can
/// take milliseconds).
fn check_time(options: &SearchOptions, expanded: u64) -> Result<(), SearchError> {
    let due = options.heuristic != Heuristic::Blind || expanded % 1024 == 1;
    match options.deadline {
        Some(d) if due && Instant::now() > d => Err(SearchError::TimeLimit { expanded }),
        _ => Ok(()),
    }
}

/// A hash of a state whose every bit affects the high bits (the table's tags) and the
/// low bits (its buckets): states differ in few bits, which weak hashes cluster.
fn hash_state(s: &[u32]) -> u64 {
    let mut h = 0x243f_6a88_85a3_08d3u64;
    for &w in s {
        h = (h ^ w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
    }
    // The finaliser of MurmurHash3.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The table of stored states. States of up to 8 words are kept in the table itself,
/// beside their id (zero-padded), so a lookup reads one place in memory; wider states
/// are compared in the arena.
enum Table {
    Words1(HashTable<([u32; 1], u32)>),
    Words2(HashTable<([u32; 2], u32)>),
    Words4(HashTable<([u32; 4], u32)>),
    Words8(HashTable<([u32; 8], u32)>),
    Ids(HashTable<u32>),
}

/// The id of `s` in a table of inline states, or `next` after inserting it; `Err` when
/// it is new and the store is `full`.
fn find_or_insert<const N: usize>(
    table: &mut HashTable<([u32; N], u32)>,
    s: &[u32],
    hash: u64,
    next: u32,
    full: bool,
) -> Result<(u32, bool), ()> {
    let mut key = [0u32; N];
    key[..s.len()].copy_from_slice(s);
    if let Some(&(_, id)) = table.find(hash, |(k, _)| *k == key) {
        return Ok((id, false));
    }
    if full {
        return Err(());
    }
    // Padding words are zero, so the hash of the padded key is the state's own.
    table.insert_unique(hash, (key, next), |(k, _)| hash_state(&k[..s.len()]));
    Ok((next, true))
}

/// The stored states: an arena of `words`-word states, their parents and g-values.
struct Store {
    words: usize,
    arena: Vec<u32>,
    parent: Vec<u32>,
    action: Vec<u32>,
    g: Vec<u64>,
    table: Table,
    limit: usize,
}

impl Store {
    fn new(words: usize, limit: usize) -> Store {
        // Ids are `u32`, and `u32::MAX` marks the initial state's missing action.
        let limit = limit.min(u32::MAX as usize - 1);
        Store {
            words,
            arena: Vec::new(),
            parent: Vec::new(),
            action: Vec::new(),
            g: Vec::new(),
            table: match words {
                1 => Table::Words1(HashTable::new()),
                2 => Table::Words2(HashTable::new()),
                3 | 4 => Table::Words4(HashTable::new()),
                5..=8 => Table::Words8(HashTable::new()),
                _ => Table::Ids(HashTable::new()),
            },
            limit,
        }
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    fn state(&self, id: u32) -> &[u32] {
        &self.arena[id as usize * self.words..(id as usize + 1) * self.words]
    }

    /// The id of `s` (of hash `hash`), if it is stored.
    fn find(&self, s: &[u32], hash: u64) -> Option<u32> {
        fn inline<const N: usize>(t: &HashTable<([u32; N], u32)>, s: &[u32], hash: u64) -> Option<u32> {
            let mut key = [0u32; N];
            key[..s.len()].copy_from_slice(s);
            t.find(hash, |(k, _)| *k == key).map(|&(_, id)| id)
        }
        match &self.table {
            Table::Words1(t) => inline(t, s, hash),
            Table::Words2(t) => inline(t, s, hash),
            Table::Words4(t) => inline(t, s, hash),
            Table::Words8(t) => inline(t, s, hash),
            Table::Ids(t) => t.find(hash, |&id| self.state(id) == s).copied(),
        }
    }

    /// The id of `s`, and whether it is new. `Err` when a new state would pass the bound.
    fn insert(&mut self, s: &[u32], parent: u32, action: u32, g: u64) -> Result<(u32, bool), ()> {
        self.insert_hashed(s, hash_state(s), parent, action, g)
    }

    /// [`Store::insert`] of a state whose hash is known.
    fn insert_hashed(&mut self, s: &[u32], hash: u64, parent: u32, action: u32, g: u64) -> Result<(u32, bool), ()> {
        let next = self.len() as u32;
        let full = self.len() >= self.limit;
        let (id, new) = match &mut self.table {
            Table::Words1(t) => find_or_insert(t, s, hash, next, full)?,
            Table::Words2(t) => find_or_insert(t, s, hash, next, full)?,
            Table::Words4(t) => find_or_insert(t, s, hash, next, full)?,
            Table::Words8(t) => find_or_insert(t, s, hash, next, full)?,
            Table::Ids(t) => {
                let (words, arena) = (self.words, &self.arena);
                let eq = |&id: &u32| &arena[id as usize * words..(id as usize + 1) * words] == s;
                match t.find(hash, eq) {
                    Some(&id) => (id, false),
                    None if full => return Err(()),
                    None => {
                        t.insert_unique(hash, next, |&i| {
                            hash_state(&arena[i as usize * words..(i as usize + 1) * words])
                        });
                        (next, true)
                    }
                }
            }
        };
        if new {
            self.arena.extend_from_slice(s);
            self.parent.push(parent);
            self.action.push(action);
            self.g.push(g);
        }
        Ok((id, new))
    }

    /// The actions from the initial state (id 0) to `id`.
    fn plan(&self, mut id: u32) -> Vec<usize> {
        let mut plan = Vec::new();
        while id != 0 {
            plan.push(self.action[id as usize] as usize);
            id = self.parent[id as usize];
        }
        plan.reverse();
        plan
    }
}

/// The actions applicable in a state, found through an index by one positive
/// precondition fact per action (actions without positive preconditions are tried in
/// every state): the fact least often true in a breadth-first sample of the task's
/// states, so that few actions are tried in vain (per state, instead of by each action's
/// first precondition: openstacks-adl p15 13 instead of 374, elevators p05 29 instead of
/// 111; the test `the_rarest_precondition_index_tries_fewer_actions` prints them).
pub(crate) struct Successors {
    /// Per fact, the actions keyed on it.
    pub(crate) by_fact: Vec<Vec<u32>>,
    /// The actions without positive precondition.
    pub(crate) always: Vec<u32>,
}

/// States and precondition tests that the sample behind the index may take.
const SAMPLE_STATES: usize = 1000;
const SAMPLE_TESTS: usize = 5_000_000;

impl Successors {
    pub(crate) fn new(task: &Task) -> Successors {
        let seen = Successors::keyed(task, |a| a.precondition.positive.first().copied()).sample(task);
        // The first of the rarest (`min_by_key` keeps the first minimum).
        Successors::keyed(task, |a| a.precondition.positive.iter().copied().min_by_key(|&f| seen[f as usize]))
    }

    /// The index with each action keyed on `key(action)`.
    fn keyed(task: &Task, key: impl Fn(&crate::task::Action) -> Option<u32>) -> Successors {
        let mut by_fact = vec![Vec::new(); task.facts.len()];
        let mut always = Vec::new();
        for (i, a) in task.actions.iter().enumerate() {
            match key(a) {
                Some(f) => by_fact[f as usize].push(i as u32),
                None => always.push(i as u32),
            }
        }
        Successors { by_fact, always }
    }

    /// How often each fact holds in the first states of a breadth-first search (at most
    /// [`SAMPLE_STATES`], and fewer where their expansions would test more than
    /// [`SAMPLE_TESTS`] preconditions).
    fn sample(&self, task: &Task) -> Vec<u32> {
        let mut seen = vec![0u32; task.facts.len()];
        let mut states: hashbrown::HashSet<State> = hashbrown::HashSet::new();
        let mut queue = std::collections::VecDeque::from([task.init.clone()]);
        states.insert(task.init.clone());
        let (mut applicable, mut next, mut tests) = (Vec::new(), Vec::new(), 0usize);
        while let Some(state) = queue.pop_front() {
            for (f, count) in seen.iter_mut().enumerate() {
                *count += u32::from(crate::task::has(&state, f as u32));
            }
            if states.len() >= SAMPLE_STATES || tests >= SAMPLE_TESTS {
                continue;
            }
            tests += self.candidates(&state);
            self.applicable(task, &state, &mut applicable);
            for &a in &applicable {
                // The search reports a value out of range; the sample skips it.
                if task.actions[a as usize].apply(&state, &mut next).is_err() {
                    continue;
                }
                if states.len() < SAMPLE_STATES && states.insert(next.clone()) {
                    queue.push_back(next.clone());
                }
            }
        }
        seen
    }

    /// The actions tried in `state`.
    fn candidates(&self, state: &[u32]) -> usize {
        let keyed: usize =
            (0..self.by_fact.len()).filter(|&f| crate::task::has(state, f as u32)).map(|f| self.by_fact[f].len()).sum();
        keyed + self.always.len()
    }

    pub(crate) fn applicable(&self, task: &Task, state: &[u32], out: &mut Vec<u32>) {
        out.clear();
        // The facts' words only: the numeric fluents' words key no action.
        for (w, &word) in state[..task.fact_words()].iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let f = w * 32 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(list) = self.by_fact.get(f) {
                    out.extend(list.iter().filter(|&&a| task.actions[a as usize].precondition.holds(state)));
                }
            }
        }
        out.extend(self.always.iter().filter(|&&a| task.actions[a as usize].precondition.holds(state)));
        out.sort_unstable();
    }
}

/// Finds an optimal plan of `task`.
pub fn search(task: &Task, options: &SearchOptions) -> Result<SearchOutcome, SearchError> {
    // The heuristic's tables, built before the first expansion: the search's setting up.
    let mut tables = Duration::ZERO;
    let outcome = match options.heuristic {
        Heuristic::Blind if task.unit_cost() => breadth_first(task, options),
        Heuristic::Blind if in_parallel(options) => {
            let (store, limit) = start(task, options)?;
            parallel::uniform_cost(task, options, store, limit)
        }
        // Uniform-cost search is A* with h = 0.
        Heuristic::Blind => astar(task, options, CHEAP, &|_| Some(0)),
        Heuristic::Pdb => {
            let pdbs = timed(&mut tables, || crate::pdb::Pdbs::build(task));
            astar(task, options, CHEAP, &|s| pdbs.value(s))
        }
        Heuristic::Max => {
            let (pdbs, evaluators) =
                timed(&mut tables, || (crate::pdb::Pdbs::build(task), evaluators(task, Heuristic::LmCut, options)));
            astar(task, options, COSTLY, &|s| Some(pdbs.value(s)?.max(value_on_this_thread(&evaluators, s)?)))
        }
        kind => {
            let evaluators = timed(&mut tables, || evaluators(task, kind, options));
            astar(task, options, COSTLY, &|s| value_on_this_thread(&evaluators, s))
        }
    };
    outcome.map(|o| SearchOutcome { setup: tables, heuristic: tables, ..o })
}

/// `build()`, its time added to `spent`.
fn timed<T>(spent: &mut Duration, build: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let built = build();
    *spent += started.elapsed();
    built
}

fn limit_error(limit: usize, expanded: u64) -> SearchError {
    SearchError::StateLimit { limit, expanded }
}

/// Whether blind search expands on several threads.
fn in_parallel(options: &SearchOptions) -> bool {
    options.threads > 1 && rayon::current_num_threads() > 1
}

/// The store of a search holding the initial state (id 0), and its bound.
fn start(task: &Task, options: &SearchOptions) -> Result<(Store, usize), SearchError> {
    let limit = options.max_states.unwrap_or(usize::MAX);
    let mut store = Store::new(task.words, limit);
    store.insert(&task.init, 0, u32::MAX, 0).map_err(|_| limit_error(limit, 0))?;
    Ok((store, limit))
}

fn breadth_first(task: &Task, options: &SearchOptions) -> Result<SearchOutcome, SearchError> {
    let (mut store, limit) = start(task, options)?;
    let mut out = SearchOutcome::default();
    if task.goal.holds(&task.init) {
        out.plan = Some(vec![]);
        out.cost = Some(0);
        out.stored = 1;
        return Ok(out);
    }
    if in_parallel(options) {
        return parallel::breadth_first(task, options, store, limit);
    }
    let successors = Successors::new(task);
    let (mut applicable, mut state, mut next): (Vec<u32>, State, State) = (Vec::new(), Vec::new(), Vec::new());
    // States are stored in breadth-first order: the queue is the range of ids.
    let mut id = 0u32;
    while (id as usize) < store.len() {
        state.clear();
        state.extend_from_slice(store.state(id));
        out.expanded += 1;
        check_time(options, out.expanded)?;
        successors.applicable(task, &state, &mut applicable);
        for &a in &applicable {
            task.actions[a as usize].apply(&state, &mut next).map_err(|e| SearchError::out_of_range(task, a, e))?;
            out.generated += 1;
            let g = store.g[id as usize] + 1;
            let (s, new) = store.insert(&next, id, a, g).map_err(|_| limit_error(limit, out.expanded))?;
            if new && task.goal.holds(&next) {
                out.plan = Some(store.plan(s));
                out.cost = Some(g);
                out.stored = store.len();
                return Ok(out);
            }
        }
        id += 1;
    }
    out.stored = store.len();
    Ok(out)
}

/// A* with an admissible (not necessarily consistent) heuristic: f-value buckets,
/// deeper states first within a bucket, a state reopened when a cheaper path to it is
/// found, the goal tested when a state is taken for expansion and when one is reached
/// at the least f (then no plan costs less); dead ends (no relaxed plan) are stored but
/// never expanded.
///
/// On several threads ([`in_parallel`]) it expands a batch at a time: up to
/// `sharing.per_thread` states per thread of the least f (all of them before any of
/// their successors); with a cheap heuristic the threads generate their successors and
/// look them up (`parallel::expand_batch`), one thread storing them in order; then the
/// threads compute the new states' values. So its counts (not its cost) depend on the
/// threads. Any state of the least f may be expanded next, so the cost stays optimal;
/// ties within the last f-layer are broken more broadly than one at a time (more
/// expansions there, `expanded` counts them all).
fn astar(
    task: &Task,
    options: &SearchOptions,
    sharing: Sharing,
    value: parallel::Value,
) -> Result<SearchOutcome, SearchError> {
    let (store, limit) = start(task, options)?;
    let mut out = SearchOutcome::default();
    let mut a = Open::new(store, value);
    let successors = Successors::new(task);
    let parallel = in_parallel(options);
    let batch_size = if parallel { batch_per_thread(sharing.per_thread) * options.threads } else { 1 };
    let (mut applicable, mut state, mut next): (Vec<u32>, State, State) = (Vec::new(), Vec::new(), Vec::new());
    let (mut batch, mut values, mut parents) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        // The batch: states of the least f, deepest first, each with the g it is taken at.
        batch.clear();
        let mut least = None;
        while batch.len() < batch_size {
            let Some(mut entry) = a.open.first_entry() else { break };
            let (f, std::cmp::Reverse(g)) = *entry.key();
            if least.is_some_and(|least| f > least) {
                break;
            }
            let Some(id) = entry.get_mut().pop() else {
                entry.remove();
                continue;
            };
            let i = id as usize;
            if a.store.g[i] != g || a.expanded_at[i] == g {
                continue; // a stale entry, or expanded with this g already
            }
            a.expanded_at[i] = g;
            if task.goal.holds(a.store.state(id)) {
                return Ok(parallel::found(&a.store, id, g, out));
            }
            // The least f of a valid entry (stale ones may sit below it).
            least = Some(f);
            batch.push((id, g));
        }
        let Some(least) = least else { break };
        a.fresh.clear();
        values.clear();
        // A batch too small to share (a narrow f-layer) is expanded here.
        let spread = parallel && sharing.expansions && batch.len() >= (batch_size / SPREAD_SHARE).max(2);
        if spread {
            if options.deadline.is_some_and(|d| Instant::now() > d) {
                return Err(SearchError::TimeLimit { expanded: out.expanded });
            }
            parents.clear();
            parents.extend(batch.iter().map(|&(id, _)| id));
            for c in parallel::expand_batch(task, &successors, &a.store, &parents, least) {
                c.tally(&mut out)?;
                for k in 0..c.parent.len() {
                    let (words, g2) = (c.state(k, task.words), c.g[k]);
                    let reached = a.reach(words, c.hash[k], c.parent[k], c.action[k], g2, || c.goal[k]);
                    if let Some(goal) = reached.map_err(|_| limit_error(limit, out.expanded))? {
                        return Ok(parallel::found(&a.store, goal, g2, out));
                    }
                }
            }
        } else {
            for &(id, g) in &batch {
                state.clear();
                state.extend_from_slice(a.store.state(id));
                out.expanded += 1;
                check_time(options, out.expanded)?;
                successors.applicable(task, &state, &mut applicable);
                for &act in &applicable {
                    let action = &task.actions[act as usize];
                    action.apply(&state, &mut next).map_err(|e| SearchError::out_of_range(task, act, e))?;
                    out.generated += 1;
                    let g2 = g.saturating_add(action.cost);
                    let goal = || g2 <= least && task.goal.holds(&next);
                    let reached = a.reach(&next, hash_state(&next), id, act, g2, goal);
                    if let Some(goal) = reached.map_err(|_| limit_error(limit, out.expanded))? {
                        return Ok(parallel::found(&a.store, goal, g2, out));
                    }
                }
            }
        }
        if parallel && (spread || !sharing.expansions) && a.fresh.len() > 1 {
            parallel::evaluate(&a.store, &a.fresh, value, &mut values);
        } else {
            values.extend(a.fresh.iter().map(|&s| value(a.store.state(s))));
        }
        a.open_fresh(&values);
    }
    out.stored = a.store.len();
    Ok(out)
}

/// A*'s store and open list: per state its heuristic value (`None`: a dead end, or not
/// evaluated yet) and the g it was expanded with; the open list by f, then -g (the
/// deepest first among equal f); the states new in the current batch.
struct Open {
    store: Store,
    h: Vec<Option<u64>>,
    expanded_at: Vec<u64>,
    open: BTreeMap<(u64, std::cmp::Reverse<u64>), Vec<u32>>,
    fresh: Vec<u32>,
}

impl Open {
    /// The search from the store's initial state (id 0), of heuristic value `value`.
    fn new(store: Store, value: parallel::Value) -> Open {
        let h = vec![value(store.state(0))];
        let open = h[0].map(|h0| ((h0, std::cmp::Reverse(0)), vec![0])).into_iter().collect();
        Open { store, h, expanded_at: vec![u64::MAX], open, fresh: Vec::new() }
    }

    /// Successor `next` (of hash `hash`) of `parent` by `action`, reached at `g2`: stored
    /// if new (and evaluated with the batch's others, [`Open::open_fresh`]), opened again
    /// if reached more cheaply. `Some(id)` when `goal()` (asked only then) says it is a
    /// goal reached at the least f: no plan costs less (every open state has an f of at
    /// least that, and f never overestimates). `Err` when the store is full.
    fn reach(
        &mut self,
        next: &[u32],
        hash: u64,
        parent: u32,
        action: u32,
        g2: u64,
        goal: impl FnOnce() -> bool,
    ) -> Result<Option<u32>, ()> {
        let (s, new) = self.store.insert_hashed(next, hash, parent, action, g2)?;
        let i = s as usize;
        let cheaper = !new && g2 < self.store.g[i];
        if (new || cheaper) && goal() {
            (self.store.g[i], self.store.parent[i], self.store.action[i]) = (g2, parent, action);
            return Ok(Some(s));
        }
        if new {
            self.h.push(None);
            self.expanded_at.push(u64::MAX);
            self.fresh.push(s);
        } else if cheaper {
            (self.store.g[i], self.store.parent[i], self.store.action[i]) = (g2, parent, action);
            if let Some(hs) = self.h[i] {
                self.open.entry((g2.saturating_add(hs), std::cmp::Reverse(g2))).or_default().push(s);
            }
        }
        Ok(None)
    }

    /// The batch's new states opened with their heuristic values `values`.
    fn open_fresh(&mut self, values: &[Option<u64>]) {
        for (&s, &value) in self.fresh.iter().zip(values) {
            self.h[s as usize] = value;
            if let Some(hs) = value {
                // Its g may have been lowered since it was found, within the batch.
                let g2 = self.store.g[s as usize];
                self.open.entry((g2.saturating_add(hs), std::cmp::Reverse(g2))).or_default().push(s);
            }
        }
    }
}

/// How parallel A* shares its work, by the cost of its heuristic: `per_thread`, the
/// states per thread of a batch (enough work per thread to outweigh its fork and join,
/// few enough that the search still dives into a plateau of equal f almost as the
/// one-thread search does); `expansions`, whether the threads expand the batch (else
/// they only compute its new states' values).
#[derive(Clone, Copy)]
struct Sharing {
    per_thread: usize,
    expansions: bool,
}

/// Blind search and pattern databases: a state's value costs a few lookups, so the
/// expansions are what is worth sharing.
const CHEAP: Sharing = Sharing { per_thread: 32, expansions: true };

/// h_max and LM-cut: the evaluations are most of the work, and larger batches widen
/// the plateaus (on two threads, openstacks-adl p11 with LM-cut expanded 82,000 states
/// in batches of 4 per thread and 122,000 in batches of 32). Sharing the expansions as
/// well made LM-cut slower on 16 threads (elevators p13 0.41 s against 0.20 s,
/// `planning-astar-parallel-h100.md`).
const COSTLY: Sharing = Sharing { per_thread: 4, expansions: false };

/// `default`, or `WARPCHECK_ASTAR_BATCH` (for experiments).
fn batch_per_thread(default: usize) -> usize {
    std::env::var("WARPCHECK_ASTAR_BATCH").ok().and_then(|v| v.parse().ok()).unwrap_or(default).max(1)
}

/// A batch smaller than this share of the full one is expanded on one thread.
const SPREAD_SHARE: usize = 8;

/// One evaluator of `kind` (h_max or LM-cut) per thread of the search.
fn evaluators(task: &Task, kind: Heuristic, options: &SearchOptions) -> Vec<Mutex<Evaluator>> {
    let evaluator = Evaluator::new(task, kind);
    (0..options.threads.max(1)).map(|_| Mutex::new(evaluator.clone())).collect()
}

/// The value of `state` by the evaluator of the current pool thread (the first off the
/// pool); each pool thread has its own, so the locks are never contended.
fn value_on_this_thread(evaluators: &[Mutex<Evaluator>], state: &[u32]) -> Option<u64> {
    let i = rayon::current_thread_index().unwrap_or(0) % evaluators.len();
    evaluators[i].lock().expect("an evaluator").value(state)
}

/// The number of states at each breadth-first depth of the whole reachable state
/// space (depth 0 first), or `Err` when more than `max_states` are reachable.
pub fn reachable_layers(task: &Task, max_states: usize) -> Result<Vec<u64>, SearchError> {
    let mut store = Store::new(task.words, max_states);
    store.insert(&task.init, 0, u32::MAX, 0).map_err(|_| limit_error(max_states, 0))?;
    let successors = Successors::new(task);
    let (mut applicable, mut state, mut next): (Vec<u32>, State, State) = (Vec::new(), Vec::new(), Vec::new());
    let mut layers = vec![1u64];
    let (mut id, mut layer_end, mut expanded) = (0usize, 1usize, 0u64);
    while id < store.len() {
        state.clear();
        state.extend_from_slice(store.state(id as u32));
        successors.applicable(task, &state, &mut applicable);
        expanded += 1;
        for &a in &applicable {
            task.actions[a as usize].apply(&state, &mut next).map_err(|e| SearchError::out_of_range(task, a, e))?;
            store.insert(&next, id as u32, a, 0).map_err(|_| limit_error(max_states, expanded))?;
        }
        id += 1;
        if id == layer_end && store.len() > layer_end {
            layers.push((store.len() - layer_end) as u64);
            layer_end = store.len();
        }
    }
    Ok(layers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{Action, Condition};

    /// A corridor of `n` facts: action `i` moves the token from fact `i` to `i + 1`
    /// (cost `i % 3`, or 1 for unit costs); the goal is the last fact.
    fn corridor(n: u32, unit: bool) -> Task {
        let actions = (0..n - 1)
            .map(|i| Action {
                name: format!("(step {i})"),
                precondition: Condition { positive: vec![i], ..Condition::default() },
                add: vec![i + 1],
                delete: vec![i],
                conditional: vec![],
                numeric: vec![],
                cost: if unit { 1 } else { u64::from(i % 3) },
            })
            .collect();
        let words = (n as usize).div_ceil(32);
        let mut init = vec![0; words];
        init[0] = 1;
        Task {
            facts: (0..n).map(|i| format!("(at {i})")).collect(),
            actions,
            init,
            goal: Condition { positive: vec![n - 1], ..Condition::default() },
            words,
            numeric: vec![],
            scale: 1,
            end_phase: n as usize - 1,
        }
    }

    #[test]
    fn every_state_width_finds_the_corridor_plan() {
        // 1, 2, 3 (padded to 4), 6 (padded to 8) words inline, 10 words by id.
        for n in [20u32, 40, 90, 170, 300] {
            for unit in [true, false] {
                let task = corridor(n, unit);
                let blind = SearchOptions { heuristic: Heuristic::Blind, ..Default::default() };
                let out = search(&task, &blind).unwrap();
                let expected: u64 = if unit { u64::from(n - 1) } else { (0..n - 1).map(|i| u64::from(i % 3)).sum() };
                assert_eq!(out.cost, Some(expected), "{n} facts, unit {unit}");
                assert_eq!(out.plan.map(|p| p.len()), Some(n as usize - 1));
                assert_eq!(out.stored, n as usize);
                assert_eq!(reachable_layers(&task, 1000).unwrap(), vec![1; n as usize]);
            }
            let options = SearchOptions { max_states: Some(5), heuristic: Heuristic::Blind, ..Default::default() };
            let limited = search(&corridor(n, true), &options);
            assert_eq!(limited, Err(SearchError::StateLimit { limit: 5, expanded: 5 }));
        }
    }

    /// The index by rarest precondition tries fewer actions per state than one by first
    /// precondition, on the same states (the 20,000 first of a breadth-first search of
    /// openstacks-adl p15 and elevators p05, which the sample of 1,000 does not cover
    /// alone), and finds the same applicable ones. Prints the averages that the guide
    /// quotes: `cargo test -p warpcheck-pddl --lib rarest -- --nocapture`.
    #[test]
    fn the_rarest_precondition_index_tries_fewer_actions() {
        let dir = std::env::var_os("WARPCHECK_PLANNING").map_or_else(
            || std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/planning")),
            std::path::PathBuf::from,
        );
        let dir = dir.join("ipc2008-opt");
        assert!(dir.is_dir(), "the planning benchmark data is missing: looked in {}", dir.display());
        for (domain, problem, at_most) in [("openstacks-opt08-adl", "p15", 0.1), ("elevators-opt08-strips", "p05", 0.5)]
        {
            let read = |f: &str| std::fs::read_to_string(dir.join(domain).join(f)).unwrap();
            let d = crate::parse_domain(&read("domain.pddl")).unwrap();
            let task =
                crate::ground(&d, &crate::parse_problem(&read(&format!("{problem}.pddl")), &d).unwrap()).unwrap();
            let (first, rarest) =
                (Successors::keyed(&task, |a| a.precondition.positive.first().copied()), Successors::new(&task));
            let (mut states, mut seen) =
                (std::collections::VecDeque::from([task.init.clone()]), hashbrown::HashSet::new());
            seen.insert(task.init.clone());
            let (mut tried, mut expanded, mut a, mut b, mut next) =
                ([0usize; 2], 0, Vec::new(), Vec::new(), Vec::new());
            while let Some(state) = states.pop_front().filter(|_| expanded < 20_000) {
                expanded += 1;
                tried[0] += first.candidates(&state);
                tried[1] += rarest.candidates(&state);
                first.applicable(&task, &state, &mut a);
                rarest.applicable(&task, &state, &mut b);
                assert_eq!(a, b, "{domain} {problem}: the applicable actions");
                for &x in &a {
                    task.actions[x as usize].apply(&state, &mut next).unwrap();
                    if seen.insert(next.clone()) {
                        states.push_back(next.clone());
                    }
                }
            }
            let per = |n: usize| n as f64 / expanded as f64;
            println!(
                "{domain} {problem}: {:.1} actions tried per state by first precondition, {:.1} by rarest",
                per(tried[0]),
                per(tried[1])
            );
            assert!(per(tried[1]) <= at_most * per(tried[0]), "{domain} {problem}: {tried:?}");
        }
    }
}
