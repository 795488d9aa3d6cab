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
/// expanded.
pub fn depth_first_prefix<M: Model>(
    product: &mut Product<'_, M>,
    states: u64,
    seed: Option<u64>,
) -> Result<Prefix, LtlError> {
    let mut order = seed.map_or(Order::model(), Order::seeded);
    struct Frame {
        start: usize,
        next: usize,
        end: usize,
    }
    let mut expanded = vec![false; product.vertices()];
    let (mut edges, mut succ, mut stack) = (Vec::new(), Vec::new(), Vec::new());
    let (mut count, mut cut) = (0u64, false);
    let mut expand = |v: u32, succ: &mut Vec<u32>, expanded: &mut Vec<bool>, product: &mut Product<'_, M>| {
        let start = succ.len();
        product.successors(v, succ)?;
        order.arrange(&mut succ[start..]);
        edges.extend(succ[start..].iter().map(|&t| (v, t)));
        if expanded.len() < product.vertices() {
            expanded.resize(product.vertices(), false);
        }
        expanded[v as usize] = true;
        Ok::<_, LtlError>(Frame { start, next: start, end: succ.len() })
    };
    if states > 0 {
        stack.push(expand(0, &mut succ, &mut expanded, product)?);
        count = 1;
    } else {
        cut = true;
    }
    while let Some(top) = stack.last_mut() {
        if top.next < top.end {
            let t = succ[top.next];
            top.next += 1;
            if !expanded[t as usize] {
                if count < states {
                    stack.push(expand(t, &mut succ, &mut expanded, product)?);
                    count += 1;
                } else {
                    cut = true;
                }
            }
        } else {
            let frame = stack.pop().expect("the loop holds a frame");
            succ.truncate(frame.start);
        }
    }
    let vertices = product.vertices();
    expanded.resize(vertices, false);
    let accepting = (0..vertices).map(|v| expanded[v] && product.is_accepting(v as u32)).collect();
    let csr = Csr::from_edges(vertices as u64, &edges).map_err(LtlError::PrefixGraph)?;
    Ok(Prefix { csr, accepting, complete: !cut, expanded: count })
}

/// OWCTY or MAP (`options.algorithm`) on depth-first prefixes in the order of
/// `options.seed` (the model's without one): the first of `options.incremental`
/// states (default 1,000,000), each next one [`PREFIX_GROWTH`] times larger, until
/// one holds an accepting cycle or is the whole product.
pub fn check_depth_first<M: Model>(model: &M, options: &Options) -> Result<Outcome, LtlError> {
    let start = Instant::now();
    let mut product = Product::new(model, options.max_states);
    let mut states = options.incremental.unwrap_or(DEFAULT_PREFIX).max(1);
    loop {
        let graph_start = Instant::now();
        let prefix = depth_first_prefix(&mut product, states, options.seed)?;
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
            });
        }
        states = states.saturating_mul(PREFIX_GROWTH);
    }
}

/// The first depth-first prefix's expanded states without `Options::incremental`.
pub const DEFAULT_PREFIX: u64 = 1_000_000;
