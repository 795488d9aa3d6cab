//! Strongly connected component (SCC) decomposition of explicit graphs.
//!
//! - [`tarjan`]: iterative Tarjan, the sequential baseline and the oracle of the tests;
//! - [`fb_trim`]: Forward-Backward with trimming (Fleischer, Hendrickson, Pinar; McLendon
//!   et al.), parallel;
//! - [`coloring`]: Coloring (Orzan), parallel;
//! - [`obf`]: Recursive OBF (Barnat, Moravec), parallel;
//! - [`parallel`]: what the parallel ones share: per-vertex subgraph labels, the round
//!   loop over independent subgraphs, restricted BFS and trimming;
//! - [`summary`]: counts, the largest component, the size histogram and its SVG plot;
//! - [`gpu`]: FB with trimming, Coloring, OBF (and FB handing over to Coloring) on a
//!   CUDA device, kernels in `gpu/scc.cu` (needs a device at run time, not to build).
//!
//! Every algorithm returns the same [`Components`]: per vertex, the smallest vertex id
//! of its component, so two decompositions are the same partition iff they are equal.
//! No algorithm recurses over the graph: explicit stacks and work lists only, so a
//! chain of tens of millions of vertices is fine. The parallel algorithms run on the
//! current rayon pool (install one to choose the number of threads).
//!
//! ```
//! use warpcheck_graph::Graph;
//! use warpcheck_scc::{decompose, Algorithm, Options};
//! let g = Graph::from_edges(4, &[(0, 1), (1, 0), (1, 2), (3, 3)]).unwrap();
//! for a in Algorithm::ALL {
//!     assert_eq!(decompose(&g, a, &Options::default()).of, vec![0, 0, 2, 3]);
//! }
//! ```

pub mod coloring;
pub mod fb_trim;
pub mod gpu;
pub mod obf;
pub mod parallel;
pub mod summary;
pub mod tarjan;

use warpcheck_graph::Graph;

pub use summary::Summary;

/// An SCC decomposition: `of[v]` is the smallest vertex id in `v`'s component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    pub of: Vec<u32>,
}

impl Components {
    /// Normalises any component labelling whose labels are vertex ids (`< n`): the
    /// label of each vertex becomes the smallest vertex of its class.
    pub fn from_labels(mut labels: Vec<u32>) -> Components {
        let mut smallest = vec![u32::MAX; labels.len()];
        for (v, &l) in labels.iter().enumerate() {
            let s = &mut smallest[l as usize];
            *s = (*s).min(v as u32);
        }
        for l in &mut labels {
            *l = smallest[*l as usize];
        }
        Components { of: labels }
    }
}

/// The decomposition algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Tarjan,
    FbTrim,
    Coloring,
    Obf,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [Algorithm::Tarjan, Algorithm::FbTrim, Algorithm::Coloring, Algorithm::Obf];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Tarjan => "tarjan",
            Algorithm::FbTrim => "fb",
            Algorithm::Coloring => "coloring",
            Algorithm::Obf => "obf",
        }
    }

    /// Whether it reads backward edges (building them first if needed).
    pub fn needs_backward(self) -> bool {
        self != Algorithm::Tarjan
    }
}

/// Tuning of the parallel algorithms.
#[derive(Clone, Debug)]
pub struct Options {
    /// Work lists (BFS levels, trimming rounds, subgraphs) shorter than this run
    /// sequentially within their task; longer ones are split across the pool.
    pub parallel_threshold: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { parallel_threshold: 2048 }
    }
}

/// Decomposes `graph` into SCCs with `algorithm`.
pub fn decompose(graph: &Graph, algorithm: Algorithm, options: &Options) -> Components {
    match algorithm {
        Algorithm::Tarjan => tarjan::tarjan(graph.forward()),
        Algorithm::FbTrim => fb_trim::fb_trim(graph, options),
        Algorithm::Coloring => coloring::coloring(graph, options),
        Algorithm::Obf => obf::obf(graph, options),
    }
}
