//! How a command ends: a [`Verdict`] (exit 0 holds, 1 violated) or a [`CliError`]
//! that knows its exit status (2 bad input or usage, 3 a resource limit). Commands
//! return these; `main` prints an error once, here, and exits with its code.

use std::process::ExitCode;

use warpcheck_cuda::CudaError;
use warpcheck_cycle::gpu::GpuHowardError;
use warpcheck_cycle::CycleError;
use warpcheck_explore::gpu::GpuError;
use warpcheck_explore::{ExploreError, StateGraphError, ValuedGraphError};
use warpcheck_graph::GraphError;
use warpcheck_liveness::LtlError;

/// Exit statuses, one table for the whole binary.
pub mod exit {
    /// The property holds (or the command finished).
    pub const HOLDS: u8 = 0;
    /// A property is violated; a counterexample was printed.
    pub const VIOLATED: u8 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: u8 = 2;
    /// A resource limit (memory, state table, device memory) was reached.
    pub const RESOURCE: u8 = 3;
}

/// A command that ran to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The property holds, or there was none to check (exit 0).
    Holds,
    /// A property is violated (exit 1).
    Violated,
}

impl Verdict {
    /// `Violated` when any violation was found.
    pub fn of(violated: bool) -> Verdict {
        if violated {
            Verdict::Violated
        } else {
            Verdict::Holds
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Holds => exit::HOLDS,
            Verdict::Violated => exit::VIOLATED,
        }
    }
}

/// Every way a command fails, with its exit status ([`CliError::exit_code`]).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input or usage, in words (exit 2).
    #[error("{0}")]
    Input(String),
    /// A diagnostic already rendered against its source, rustc-style (file, line,
    /// column, caret), `error:` included; printed as it is (exit 2).
    #[error("{0}")]
    Rendered(String),
    /// `--backend gpu` (or a GPU-only algorithm) without a usable CUDA device (exit 2).
    #[error("no CUDA device: {0}")]
    NoGpu(String),
    /// A resource limit in words, e.g. threads that cannot start (exit 3).
    #[error("{0}")]
    Resource(String),
    /// The parallel engine's table filled up (exit 3).
    #[error(transparent)]
    Explore(#[from] ExploreError),
    /// The state graph could not be built (exit 3).
    #[error(transparent)]
    StateGraph(#[from] StateGraphError),
    /// An LTL check without a property (exit 2) or out of room (exit 3).
    #[error(transparent)]
    Ltl(#[from] LtlError),
    /// A GPU run: bad input (exit 2), or out of device memory or failed (exit 3).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A graph file: bad (exit 2), or too large for memory (exit 3).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// An optimal-cycle problem: bad input (exit 2), or exact arithmetic overflowed
    /// (exit 3).
    #[error(transparent)]
    Cycle(#[from] CycleError),
}

impl CliError {
    /// Bad input or usage, in words.
    pub fn input(message: impl std::fmt::Display) -> CliError {
        CliError::Input(message.to_string())
    }

    /// The exit status: 2 for bad input or usage, 3 for a resource limit.
    pub fn exit_code(&self) -> u8 {
        use exit::{BAD_INPUT, RESOURCE};
        match self {
            CliError::Input(_) | CliError::Rendered(_) | CliError::NoGpu(_) => BAD_INPUT,
            CliError::Resource(_) | CliError::Explore(_) | CliError::StateGraph(_) => RESOURCE,
            CliError::Ltl(LtlError::NoProperty) => BAD_INPUT,
            CliError::Ltl(_) => RESOURCE,
            CliError::Gpu(
                GpuError::NoDevice(_) | GpuError::Unsupported(_) | GpuError::NoProperty | GpuError::Options(_),
            ) => BAD_INPUT,
            CliError::Gpu(_) => RESOURCE,
            CliError::Graph(GraphError::OutOfMemory { .. }) => RESOURCE,
            CliError::Graph(_) => BAD_INPUT,
            CliError::Cycle(CycleError::Overflow | CycleError::Internal(_)) => RESOURCE,
            CliError::Cycle(_) => BAD_INPUT,
        }
    }

    /// Prints the error on standard error: `error: ...`, or a rendered diagnostic.
    pub fn print(&self) {
        match self {
            CliError::Rendered(text) => eprint!("{text}"),
            e => eprintln!("error: {e}"),
        }
    }
}

impl From<GpuHowardError> for CliError {
    fn from(e: GpuHowardError) -> CliError {
        match e {
            GpuHowardError::Cycle(e) => CliError::Cycle(e),
            GpuHowardError::Cuda(e) => CliError::from(e),
            e @ GpuHowardError::TooLarge(_) => CliError::Resource(e.to_string()),
        }
    }
}

impl From<CudaError> for CliError {
    /// The GPU runtime's errors as the GPU engine's (a missing device stays one).
    fn from(e: CudaError) -> CliError {
        CliError::Gpu(GpuError::from(e))
    }
}

impl From<ValuedGraphError> for CliError {
    fn from(e: ValuedGraphError) -> CliError {
        match e {
            ValuedGraphError::Graph(e) => CliError::StateGraph(e),
            e @ ValuedGraphError::Eval { .. } => CliError::input(e),
        }
    }
}

/// The process exit status of a command's result, the error printed.
pub fn finish(result: Result<Verdict, CliError>) -> ExitCode {
    match result {
        Ok(verdict) => ExitCode::from(verdict.exit_code()),
        Err(e) => {
            e.print();
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        assert_eq!(Verdict::of(false).exit_code(), 0);
        assert_eq!(Verdict::of(true).exit_code(), 1);
        assert_eq!(CliError::input("bad").exit_code(), 2);
        assert_eq!(CliError::NoGpu("none".into()).exit_code(), 2);
        assert_eq!(CliError::Resource("threads".into()).exit_code(), 3);
        assert_eq!(CliError::Ltl(LtlError::NoProperty).exit_code(), 2);
        assert_eq!(CliError::Ltl(LtlError::TooManyStates { limit: 1 }).exit_code(), 3);
        assert_eq!(CliError::Gpu(GpuError::Cuda("x".into())).exit_code(), 3);
        let undecided = CliError::Gpu(GpuError::NoCycleInPrefix { expanded: 5, capacity: 9, bytes: 90 });
        assert_eq!(undecided.exit_code(), 3);
        assert!(undecided.to_string().contains("the 5 states expanded before it filled"), "{undecided}");
        assert_eq!(CliError::Cycle(CycleError::Overflow).exit_code(), 3);
        assert_eq!(CliError::Cycle(CycleError::Graph("x".into())).exit_code(), 2);
    }
}
