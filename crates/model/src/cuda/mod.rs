//! The C ABI between the GPU kernels and a front end: a [`CudaModel`] hands the
//! kernels C source that defines, for its states,
//!
//! - `int wc_successors(const u32 *s, WcSink *sink)`: calls `wc_emit(sink, target)`
//!   for every enabled step and `wc_emit_error(sink)` for every step raising an
//!   evaluation error, in any order; returns whether `s` is a deadlock (the rules of
//!   the model's CPU [`Successors`](crate::Successors), product and stuttering
//!   included);
//! - `int wc_assertion(const u32 *s)`: the index `k` of the first violated assertion
//!   (label `assertion_labels()[k]`), or -1;
//! - `int wc_label(int k, const u32 *s)`: label `k` of the list the source was
//!   generated for ([`CudaModel::cuda_source`]): 1 when it holds, 0 when not, -1 when
//!   evaluating it raises an error;
//! - `int wc_invariant(int k, const u32 *s)`: whether label `k` holds (an error
//!   counts as not holding), for the `WC_INVARIANTS` labels the kernels check;
//! - `int wc_accepting(const u32 *s)`: whether the state is accepting;
//! - macros `WC_WORDS`, `WC_ASSERTIONS`, `WC_INVARIANTS`;
//! - `WC_TABLE(name)` once for each of its [`CudaSource::tables`], at file scope:
//!   the includer makes `name` a `const u32 *` to the table's data (on the device a
//!   pointer the engine sets to a copy in device memory; on the host a static
//!   array), so that large data stays out of the compiled source.
//!
//! Functions are declared with `WC_FN`, which the includer defines
//! (`__device__ __forceinline__` under NVRTC, `static inline` for a host C compiler),
//! and the includer provides `u32`, `u64`, `WcSink`, `wc_emit` and `wc_emit_error`
//! before the source. The same text therefore also compiles on the host with `cc`,
//! which is how CI holds every generated source to the model's CPU successors, state
//! for state, without a GPU ([`host::run_on_host`]).

pub mod host;
mod product;

use crate::interface::{LabelId, Model};

/// Generated C source for one model.
#[derive(Clone, Debug)]
pub struct CudaSource {
    pub source: String,
    /// An upper bound on the successors of one state (steps into the error state
    /// included): the engine sizes its work so that the state store cannot overflow.
    pub max_successors: u64,
    /// Read-only data the source reads through `WC_TABLE(name)` pointers.
    pub tables: Vec<Table>,
}

/// A named array of words that generated code reads (see [`CudaSource::tables`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub name: String,
    pub data: Vec<u32>,
}

/// Why a model or an algorithm has no GPU code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    /// The front end cannot generate code for this model; the text says why.
    #[error("{0}")]
    Model(String),
    #[error("the {0} algorithm does not run on the GPU; use the CPU")]
    Algorithm(&'static str),
}

/// A model whose successor function is also available as C source against the ABI
/// above.
pub trait CudaModel: Model {
    /// The source, with `labels` (labels of this model) as `wc_label` and
    /// `wc_invariant` 0, 1, ... (`WC_INVARIANTS` = their number: the kernels check
    /// them all as invariants; a wrapper such as the Büchi product compiles more
    /// labels and says how many of them are invariants).
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported>;
}

impl<M: CudaModel> CudaModel for &M {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        (**self).cuda_source(labels)
    }
}
