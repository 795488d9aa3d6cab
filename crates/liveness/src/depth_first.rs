//! OWCTY and MAP on depth-first prefixes of the product: the graph of the first states
//! a depth-first search expands (in the model's successor order or a seed's), each
//! with all its successors, and the states found but not expanded with none. Its edges
//! are the product's, so an accepting cycle there is one of the product: a violation
//! is decided without the whole product. A property that holds is decided only when
//! the search expanded every state. Breadth-first prefixes (`Options::incremental`)
//! hold the states near the initial one; a depth-first one reaches deep cycles, as
//! nested DFS does, and with a seed ([`crate::Options::seed`]) leaves a region
//! without accepting cycles that the model's order would search first.

use std::time::Instant;

use warpcheck_graph::Csr;
use warpcheck_model::interface::Model;
use warpcheck_store::MemoryBudget;

use crate::order::Order;
use crate::product::{Product, Successors};
use crate::{cycle_on, lasso, LtlError, Options, Outcome, PREFIX_GROWTH};

/// The graph of a depth-first prefix of `states` expanded states at most.
pub struct Prefix {
    pub csr: Csr,
    /// Per vertex: accepting and expanded (a state not expanded is never accepting
    /// here, as in breadth-first prefixes).
    pub accepting: Vec<bool>,
    /// Whether the search expanded every reachable state: the graph is the product's.
    pub complete: bool,
    /// States expanded.
    pub expanded: u64,
}

/// Searches `product` depth first from its initial state, in the order of `seed` (the
/// model's without one), expanding at most `states` states; the graph of what it
/// expanded. Fails with [`LtlError::PrefixMemory`] when the states, edges and graph
/// would take more than `budget` bytes.
pub fn depth_first_prefix<M: Model>(
    product: &mut Product<'_, M>,
    states: u64,
    seed: Option<u64>,
    budget: u64,
) -> Result<Prefix, LtlError> {
    let mut search = Search {
        order: seed.map_or(Order::model(), Order::seeded),
        expanded: vec![false; product.vertices()],
        edges: Vec::new(),
        succ: Vec::new(),
    };
    let (mut stack, mut count, mut cut) = (Vec::new(), 0u64, states == 0);
    if states > 0 {
        stack.push(search.expand(product, 0)?);
        count = 1;
    }
    while let Some(top) = stack.last_mut() {
        if top.next < top.end {
            let t = search.succ[top.next];
            top.next += 1;
            if !search.expanded[t as usize] {
                if count < states {
                    stack.push(search.expand(product, t)?);
                    count += 1;
                    if count % 4096 == 0 && search.bytes(product) > budget {
                        return Err(LtlError::PrefixMemory { bytes: budget });
                    }
                } else {
                    cut = true;
                }
            }
        } else {
            let frame = stack.pop().expect("the loop holds a frame");
            search.succ.truncate(frame.start);
        }
    }
    if search.bytes(product) > budget {
        return Err(LtlError::PrefixMemory { bytes: budget });
    }
    let vertices = product.vertices();
    search.expanded.resize(vertices, false);
    let accepting = (0..vertices).map(|v| search.expanded[v] && product.is_accepting(v as u32)).collect();
    let csr = Csr::from_edges(vertices as u64, &search.edges).map_err(LtlError::PrefixGraph)?;
    Ok(Prefix { csr, accepting, complete: !cut, expanded: count })
}

/// A frame of the depth-first stack: its state's successors are `succ[start..end]`,
/// the next to follow `next`.
struct Frame {
    start: usize,
    next: usize,
    end: usize,
}

/// What a depth-first prefix's search keeps besides its stack.
struct Search {
    order: Order,
    /// Per vertex, whether it was expanded.
    expanded: Vec<bool>,
    /// The expanded states' edges.
    edges: Vec<(u32, u32)>,
    /// The successors of the states on the stack, back to back.
    succ: Vec<u32>,
}

impl Search {
    /// Expands `v`: its successors in the search's order, and their edges.
    fn expand<M: Model>(&mut self, product: &mut Product<'_, M>, v: u32) -> Result<Frame, LtlError> {
        let start = self.succ.len();
        product.successors(v, &mut self.succ)?;
        self.order.arrange(&mut self.succ[start..]);
        self.edges.extend(self.succ[start..].iter().map(|&t| (v, t)));
        if self.expanded.len() < product.vertices() {
            self.expanded.resize(product.vertices(), false);
        }
        self.expanded[v as usize] = true;
        Ok(Frame { start, next: start, end: self.succ.len() })
    }

    /// The bytes the states and edges take, and the graph built from them will take
    /// (its targets and offsets, and a flag per vertex).
    fn bytes<M: Model>(&self, product: &Product<'_, M>) -> u64 {
        let (edges, vertices) = (self.edges.len() as u64, product.vertices() as u64);
        product.store_bytes() as u64 + 12 * edges + 10 * vertices + 4 * self.succ.len() as u64
    }
}

/// OWCTY or MAP (`options.algorithm`) on depth-first prefixes in the order of
/// `options.seed` (the model's without one): the first of `options.incremental`
/// states (default 1,000,000), each next one [`PREFIX_GROWTH`] times larger, until
/// one holds an accepting cycle or is the whole product, within `options.memory`
/// (default: half of the available memory).
pub fn check_depth_first<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    let start = Instant::now();
    let mut product = Product::new(model, options.max_states);
    let budget = MemoryBudget::or_default(options.memory).bytes();
    let mut states = options.incremental.unwrap_or(DEFAULT_PREFIX).max(1);
    loop {
        let graph_start = Instant::now();
        let prefix = depth_first_prefix(&mut product, states, options.seed, budget)?;
        let graph_seconds = graph_start.elapsed().as_secs_f64();
        let (cycle, iterations, remaining) = cycle_on(&prefix.csr, &prefix.accepting, options.algorithm);
        if cycle.is_some() || prefix.complete {
            return Ok(Outcome {
                lasso: cycle.map(|c| lasso(model, |v| product.state(v).to_vec(), &c)),
                states: product.vertices() as u64,
                transitions: prefix.csr.edges(),
                error_transitions: product.error_transitions,
                iterations: Some(iterations),
                remaining,
                graph_seconds: Some(graph_seconds),
                seconds: start.elapsed().as_secs_f64(),
                partial: !prefix.complete,
                table_growths: None,
                disk: None,
            });
        }
        states = states.saturating_mul(PREFIX_GROWTH);
    }
}

/// The first depth-first prefix's expanded states without `Options::incremental`.
pub const DEFAULT_PREFIX: u64 = 1_000_000;
