//! Accepting cycles of a model's product with a Büchi automaton (LTL model checking):
//! whether some run visits accepting states infinitely often, and if so a
//! lasso-shaped counterexample. Works on any `warpcheck_model::Model` whose
//! [`is_accepting`](warpcheck_model::Model::is_accepting) marks the Büchi states: a
//! `warpcheck_model::Product`, or a DVE program with its property process.
//!
//! - [`product`]: the graphs searched: [`Successors`] and the on-the-fly product
//!   [`Product`] over the model's successor worker, and explicit graphs;
//! - [`ndfs`]: iterative nested DFS (Schwoon–Esparza colours), on the fly;
//! - [`cndfs`]: parallel nested DFS on the fly (CNDFS), over the tree-compressed
//!   concurrent store;
//! - [`owcty`]: One-Way-Catch-Them-Young on the explicit state graph, sequential and
//!   parallel, and the extraction of a cycle from what it leaves;
//! - [`map`]: Maximal Accepting Predecessors on the explicit state graph, sequential
//!   and parallel;
//! - [`semi_external`]: nested DFS with the product's states on disk and two bits
//!   per state in memory, indexed by a minimal perfect hash;
//! - [`gpu`]: OWCTY and MAP on the device, on the product graph that the GPU
//!   exploration engine records (the CUDA twins of [`owcty`] and [`map`]).
//!
//! [`check`] runs the algorithm of [`Options`] and returns an [`Outcome`]: the verdict
//! and, when violated, a [`Lasso`] (a stem from the initial state and a cycle through an
//! accepting state, each step named). A step that raises an evaluation error leads to
//! the error state, which has no successors: it lies on no cycle, so it cannot make an
//! LTL property fail (the reachability checks report such errors).
//!
//! ```
//! // x counts 0, 1, 2, 0, ...; the property "never x == 2" as a Büchi automaton that
//! // accepts once x == 2 has been seen.
//! let source = "byte x;
//!     process P { state s; init s; trans s -> s { effect x = (x + 1) % 3; }; }
//!     process LTL_property { state q0, q1; init q0; accept q1;
//!       trans q0 -> q0 {}, q0 -> q1 { guard x == 2; }, q1 -> q1 {}; }
//!     system async property LTL_property;";
//! let dve = warpcheck_dve::load(source).unwrap();
//! let model = dve.model.product().unwrap(); // the system × its property process
//! for algorithm in [warpcheck_liveness::Algorithm::Ndfs, warpcheck_liveness::Algorithm::Owcty] {
//!     let options = warpcheck_liveness::Options { algorithm, ..Default::default() };
//!     let outcome = warpcheck_liveness::check(&model, &options).unwrap();
//!     assert!(!outcome.holds());
//!     assert!(!outcome.lasso.unwrap().cycle.is_empty());
//! }
//! ```

pub mod cndfs;
pub mod depth_first;
pub mod gpu;
pub mod map;
pub mod ndfs;
mod order;
pub mod owcty;
pub mod product;
pub mod semi_external;

use std::time::Instant;

use warpcheck_explore::{GraphOptions, Lasso, ParallelStateGraph, PrefixBuilder, ProgressHook, StateGraphError};
use warpcheck_graph::Csr;
use warpcheck_model::interface::Model;
use warpcheck_store::MemoryBudget;

pub use ndfs::{Cycle, Ndfs};
pub use product::{Explicit, Product, Successors};

/// The accepting-cycle algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Nested DFS on the fly: stops at the first cycle (sequential).
    #[default]
    Ndfs,
    /// Parallel nested DFS on the fly (CNDFS): one worker per thread of the current
    /// rayon pool (at most [`cndfs::MAX_WORKERS`]), stops at the first cycle.
    Cndfs,
    /// OWCTY on the explicit state graph, parallel on the current rayon pool. (The
    /// graph of every OWCTY and MAP variant is built first, on the whole pool.)
    Owcty,
    /// OWCTY, sequential (the reference of the parallel one).
    OwctySequential,
    /// MAP (maximal accepting predecessors) on the explicit state graph, parallel on
    /// the current rayon pool.
    Map,
    /// MAP, sequential.
    MapSequential,
    /// Nested DFS, semi-external: the product's states are enumerated on disk first,
    /// then searched with two bits per state in memory ([`semi_external`]).
    SemiExternal,
}

impl Algorithm {
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Ndfs,
        Algorithm::Cndfs,
        Algorithm::Owcty,
        Algorithm::OwctySequential,
        Algorithm::Map,
        Algorithm::MapSequential,
        Algorithm::SemiExternal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ndfs => "ndfs",
            Algorithm::Cndfs => "cndfs",
            Algorithm::Owcty => "owcty",
            Algorithm::OwctySequential => "owcty-seq",
            Algorithm::Map => "map",
            Algorithm::MapSequential => "map-seq",
            Algorithm::SemiExternal => "semi-external",
        }
    }

    /// Whether it runs on all threads of the current rayon pool (the semi-external
    /// search enumerates the product on all of them, then searches on one).
    pub fn parallel(self) -> bool {
        matches!(self, Algorithm::Cndfs | Algorithm::Owcty | Algorithm::Map | Algorithm::SemiExternal)
    }

    /// Whether it is a nested DFS variant, rather than OWCTY or MAP on the explicit
    /// product graph built first. (The semi-external search enumerates the states on
    /// disk first, but builds no graph.)
    pub fn on_the_fly(self) -> bool {
        matches!(self, Algorithm::Ndfs | Algorithm::Cndfs | Algorithm::SemiExternal)
    }
}

/// How to check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub algorithm: Algorithm,
    /// At most this many product states (`None`: up to the `u32` id limit).
    pub max_states: Option<u64>,
    /// Bytes for the store of the product graph's states (OWCTY and MAP; `None`: half
    /// of the available memory; the table starts small and grows in place up to it), or
    /// for CNDFS's store and stacks (`None`: three quarters of the available memory;
    /// see [`cndfs`]); the semi-external search's successor buffer takes half of it
    /// (`None`: an eighth of the available memory, at most 4 GiB).
    pub memory: Option<u64>,
    /// Where the semi-external search keeps its files (`None`: the system's directory
    /// for temporary files).
    pub dir: Option<std::path::PathBuf>,
    /// OWCTY and MAP only: build the product in breadth-first prefixes, the first of
    /// at least this many states and each next one [`PREFIX_GROWTH`] times larger
    /// (each continuing the last build), and stop at the first prefix with an
    /// accepting cycle (a cycle of a prefix is one of the product). A property that
    /// holds is decided on the whole product, in the last round. `None`: the whole
    /// product at once.
    pub incremental: Option<u64>,
    /// Search each state's successors in a random order fixed by this seed, instead of
    /// the model's: NDFS; every CNDFS worker, each its own (without a seed, worker 0
    /// takes the model's order and the others orders of their own); OWCTY and MAP then
    /// check depth-first prefixes in this order ([`depth_first`]; `incremental` is
    /// the first prefix's expanded states) instead of breadth-first ones.
    pub seed: Option<u64>,
    /// Where the search reports its states and transitions as it goes, a few times a
    /// second: the depth of the search stack for NDFS and CNDFS, the level of the
    /// product graph's breadth-first build for OWCTY and MAP.
    pub progress: Option<ProgressHook>,
}

/// How much larger each prefix of an incremental check is than the one before.
pub const PREFIX_GROWTH: u64 = 8;

/// The prefix to ask for after one of `prefix` states was asked for and `built`
/// states were built: [`PREFIX_GROWTH`] times more, and at least one level more (a
/// level may overshoot the request by far).
pub fn next_prefix(prefix: u64, built: u64) -> u64 {
    prefix.saturating_mul(PREFIX_GROWTH).max(built.saturating_add(1))
}

/// Why no verdict.
#[derive(Debug, thiserror::Error)]
pub enum LtlError {
    #[error("the model has no property process (`system ... property P;`): there is no LTL property to check")]
    NoProperty,
    #[error("the product has more than {limit} states")]
    TooManyStates { limit: u64 },
    #[error("the product graph's store: {0}")]
    StoreFull(StateGraphError),
    #[error("the depth-first prefix's graph: {0}")]
    PrefixGraph(warpcheck_graph::GraphError),
    #[error("the depth-first prefix's states and graph need more than {bytes} bytes: give the search more memory with --memory, or start with a smaller prefix (--incremental)")]
    PrefixMemory { bytes: u64 },
    #[error("{full}: {}", if .0.capacity >= 1 << 32 {
        "the largest table the store's 32-bit ids allow, so the product is too large for this search"
    } else {
        "give the search more memory with --memory"
    }, full = .0)]
    TableFull(warpcheck_store::TableFull),
    #[error("the depth-first stacks need more than {limit} bytes: give the search more memory with --memory, or fewer threads (each has its own stacks)")]
    StacksFull { limit: u64 },
    #[error("the semi-external search's state files: {0}")]
    Disk(warpcheck_explore::disk::DiskError),
    #[error("the minimal perfect hash of the product's states could not be built")]
    PerfectHash,
}

/// The result of an LTL check.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The counterexample, when the property is violated.
    pub lasso: Option<Lasso>,
    /// Product states stored (all reachable ones for OWCTY and for NDFS on a property
    /// that holds; fewer when NDFS stops at a cycle). The error state is not counted.
    pub states: u64,
    /// Steps generated (including steps into the error state).
    pub transitions: u64,
    /// Steps that raised an evaluation error.
    pub error_transitions: u64,
    /// OWCTY: iterations to the fixpoint, and the size of the set it left; MAP: rounds
    /// of propagation (and no set).
    pub iterations: Option<u32>,
    pub remaining: Option<u64>,
    /// Time to build the state graph (OWCTY), and in all.
    pub graph_seconds: Option<f64>,
    pub seconds: f64,
    /// The graph searched was a breadth-first prefix of the product, not all of it
    /// ([`Options::incremental`]): `states` and `transitions` count that prefix. From
    /// [`check`], only with a cycle (found in that prefix); from
    /// [`check_product_graph`] on a prefix, also without one, which then decides
    /// nothing.
    pub partial: bool,
    /// CNDFS and the product graph's build: how often the store's table grew (in
    /// place: the search went on, nothing was explored again).
    pub table_growths: Option<u32>,
    /// The semi-external search: its disk and memory.
    pub disk: Option<semi_external::DiskUse>,
}

impl Outcome {
    /// Whether the property holds (no accepting cycle).
    pub fn holds(&self) -> bool {
        self.lasso.is_none()
    }
}

/// Checks the property of `model` (its property process) with `options.algorithm`.
pub fn check<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    if model.property().is_none() {
        return Err(LtlError::NoProperty);
    }
    match options.algorithm {
        Algorithm::Ndfs => check_ndfs(model, options),
        Algorithm::Cndfs => check_cndfs(model, options),
        Algorithm::SemiExternal => semi_external::check_semi_external(model, options),
        _ if options.seed.is_some() => depth_first::check_depth_first(model, options),
        _ => check_graph(model, options),
    }
}

pub(crate) fn lasso<M: Model>(model: &M, state: impl Fn(u32) -> Vec<u32>, cycle: &Cycle) -> Lasso {
    let stem: Vec<Vec<u32>> = cycle.stem.iter().map(|&v| state(v)).collect();
    let states: Vec<Vec<u32>> = cycle.cycle.iter().map(|&v| state(v)).collect();
    Lasso::build(model, &stem, &states)
}

fn check_ndfs<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    let start = Instant::now();
    let mut product = Product::new(model, options.max_states);
    let mut ndfs = Ndfs::new();
    if let Some(seed) = options.seed {
        ndfs = ndfs.seeded(seed);
    }
    if let Some(hook) = &options.progress {
        ndfs = ndfs.with_progress(hook.clone());
    }
    let found = ndfs.search(&mut product, 0)?;
    Ok(Outcome {
        lasso: found.map(|c| lasso(model, |v| product.state(v).to_vec(), &c)),
        states: product.vertices() as u64,
        transitions: product.transitions,
        error_transitions: product.error_transitions,
        iterations: None,
        remaining: None,
        graph_seconds: None,
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
        table_growths: None,
        disk: None,
    })
}

fn check_cndfs<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    let start = Instant::now();
    let found = cndfs::cndfs(model, options, rayon::current_num_threads())?;
    Ok(Outcome {
        lasso: found.lasso.map(|(stem, cycle)| Lasso::build(model, &stem, &cycle)),
        states: found.states,
        transitions: found.transitions,
        error_transitions: found.error_transitions,
        iterations: None,
        remaining: None,
        graph_seconds: None,
        seconds: start.elapsed().as_secs_f64(),
        partial: false,
        table_growths: Some(found.growths),
        disk: None,
    })
}

/// The explicit product graph that OWCTY and MAP search, with its states.
pub struct ProductGraph {
    pub built: ParallelStateGraph,
    /// Seconds to build it.
    pub seconds: f64,
}

/// Builds the product graph of `model` (with its property process) on all threads of
/// the current rayon pool, its store sized by `options.memory` (default: half of the
/// available memory).
pub fn product_graph<M: Model>(model: &M, options: &Options) -> Result<ProductGraph, LtlError> {
    ProductBuilder::new(model, options)?.next(None)
}

/// Builds the product graph of `model` prefix by prefix ([`PrefixBuilder`]): each
/// call extends the same build to a larger breadth-first prefix.
pub struct ProductBuilder<'m, M: Model> {
    builder: PrefixBuilder<'m, M>,
}

impl<'m, M: Model> ProductBuilder<'m, M> {
    /// A build on all threads of the current rayon pool, its store sized as in
    /// [`product_graph`].
    pub fn new(model: &'m M, options: &Options) -> Result<ProductBuilder<'m, M>, LtlError> {
        if model.property().is_none() {
            return Err(LtlError::NoProperty);
        }
        let graph_options = GraphOptions {
            threads: rayon::current_num_threads(),
            max_states: options.max_states,
            table: GraphOptions::table_for(MemoryBudget::or_default(options.memory)),
            prefix: None,
        };
        let builder = PrefixBuilder::new(model, &graph_options);
        let builder = match &options.progress {
            Some(hook) => builder.with_progress(hook.clone()),
            None => builder,
        };
        Ok(ProductBuilder { builder })
    }

    /// The graph up to the first level boundary with at least `prefix` states (`None`:
    /// all of it; see [`ParallelStateGraph::complete`]); `seconds` is this call's time.
    pub fn next(&mut self, prefix: Option<u64>) -> Result<ProductGraph, LtlError> {
        let start = Instant::now();
        let built = self.builder.build(prefix).map_err(|e| match e {
            StateGraphError::TooManyStates { limit } => LtlError::TooManyStates { limit },
            e @ StateGraphError::TableFull { .. } => LtlError::StoreFull(e),
        })?;
        Ok(ProductGraph { built, seconds: start.elapsed().as_secs_f64() })
    }
}

/// OWCTY or MAP on the explicit state graph, built first: whole, or in growing
/// prefixes ([`Options::incremental`]), the times of all rounds added up.
fn check_graph<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    let mut prefix = options.incremental.map(|p| p.max(1));
    let (mut graph_seconds, mut seconds) = (0.0, 0.0);
    let mut builder = ProductBuilder::new(model, options)?;
    loop {
        let graph = builder.next(prefix)?;
        let mut outcome = check_product_graph(model, &graph, options.algorithm);
        graph_seconds += graph.seconds;
        seconds += outcome.seconds;
        if outcome.lasso.is_some() || graph.built.complete {
            outcome.graph_seconds = Some(graph_seconds);
            outcome.seconds = seconds;
            return Ok(outcome);
        }
        prefix = prefix.map(|p| next_prefix(p, graph.built.states() as u64));
    }
}

/// Runs `algorithm` on a product graph of `model` built by [`product_graph`] or
/// [`ProductBuilder`]: MAP for the MAP variants, else OWCTY (parallel for
/// [`Algorithm::Owcty`], sequential for the others), then the witness search for the
/// lasso. On a prefix, no lasso means only that the prefix has no accepting cycle.
pub fn check_product_graph<M: Model>(model: &M, graph: &ProductGraph, algorithm: Algorithm) -> Outcome {
    let start = Instant::now();
    let sg = &graph.built.graph;
    let csr = sg.graph.forward();
    let (cycle, iterations, remaining) = cycle_on(csr, &graph.built.accepting, algorithm);
    let lasso = cycle.map(|c| lasso(model, |v| graph.built.state(v), &c));
    let error_transitions = sg.error_state.map_or(0, |e| csr.edge_iter().filter(|&(_, t)| t == e).count() as u64);
    Outcome {
        lasso,
        states: graph.built.states() as u64,
        transitions: csr.edges(),
        error_transitions,
        iterations: Some(iterations),
        remaining,
        graph_seconds: Some(graph.seconds),
        seconds: graph.seconds + start.elapsed().as_secs_f64(),
        partial: !graph.built.complete,
        table_growths: Some(graph.built.growths),
        disk: None,
    }
}

/// OWCTY or MAP (`algorithm`, sequential or parallel) on an explicit graph: an
/// accepting cycle if there is one, the iterations or rounds, and OWCTY's fixpoint's
/// size.
pub(crate) fn cycle_on(csr: &Csr, accepting: &[bool], algorithm: Algorithm) -> (Option<Cycle>, u32, Option<u64>) {
    match algorithm {
        Algorithm::Map | Algorithm::MapSequential => {
            let result =
                if algorithm.parallel() { map::map_parallel(csr, accepting) } else { map::map(csr, accepting) };
            // MAP proved a cycle; the witness search (linear) finds one with a shortest
            // stem to its first accepting vertex.
            let cycle = result.on_cycle.map(|_| {
                owcty::witness(csr, accepting, &vec![true; csr.vertices()]).expect("MAP found an accepting cycle")
            });
            (cycle, result.rounds, None)
        }
        _ => {
            let result =
                if algorithm.parallel() { owcty::owcty_parallel(csr, accepting) } else { owcty::owcty(csr, accepting) };
            let cycle = (result.size > 0).then(|| {
                owcty::witness(csr, accepting, &result.remaining)
                    .expect("a non-empty OWCTY fixpoint holds an accepting cycle")
            });
            (cycle, result.iterations, Some(result.size as u64))
        }
    }
}
