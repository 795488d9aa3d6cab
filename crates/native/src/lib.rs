//! Native successor code for the CPU engines: the C that a [`CudaModel`] generates for
//! the GPU, compiled for the host with the system C++ compiler (`$CXX`, else `c++`)
//! and loaded, as DiVinE and LTSmin compile their models.
//!
//! [`Native`] wraps the model and is a [`Model`] itself: its successor worker calls the
//! compiled function, and everything else (labels, acceptance, descriptions) is the
//! wrapped model's. Two limits keep it exact:
//!
//! - a state with a step that raises an evaluation error, or with more successors than
//!   the worker's buffer holds, is expanded again by the wrapped model's own worker,
//!   so errors keep their kind and no successor is lost;
//! - the compiled code does not say which transition groups moved: its steps carry no
//!   groups, no automaton edge and no weight. It serves engines that ignore steps (the
//!   exploration engines); a trace found with it is rebuilt over the same states with
//!   the wrapped model to name its steps.
//!
//! [`compile`] owns the translation unit, the compiler call and the on-disk cache.

pub mod compile;

use libloading::Library;
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::interface::{Describe, Label, LabelId, Model, Step, Successors};
use warpcheck_model::{BitField, Dependencies, EvalError};

/// Why a model has no native code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    /// The front end generates no C for this model.
    #[error("no native code for this model: {0}")]
    Unsupported(String),
    /// No C++ compiler could be run.
    #[error("{0}")]
    NoCompiler(String),
    #[error("the native successor code did not compile: {0}")]
    Compile(String),
    #[error("the native successor code cannot be loaded: {0}")]
    Load(String),
    /// The model's tables are too large to compile quickly as C arrays.
    #[error("the model's tables have {0} words: more than compiling them quickly allows")]
    LargeTables(u64),
}

/// The table words up to which [`Native::new_within`] is meant to compile by default:
/// larger tables (big networks of LTSs) make the C compiler slow.
pub const QUICK_TABLE_WORDS: u64 = 1 << 20;

/// `wc_native_successors(state, buffer, capacity, &count, &errors)`: writes up to
/// `capacity` successors, counts all and the erroring steps, returns the deadlock flag.
type SuccessorsFn = unsafe extern "C" fn(*const u32, *mut u32, u32, *mut u32, *mut u32) -> i32;
type WordsFn = unsafe extern "C" fn() -> u32;

/// Successors one worker's buffer holds at most (a state with more is expanded by the
/// wrapped model).
const MAX_BUFFER_WORDS: u64 = 1 << 18;

/// A model whose successors come from its generated C, compiled for the host.
pub struct Native<M> {
    model: M,
    /// Keeps the code of `function` mapped.
    _library: Library,
    function: SuccessorsFn,
    words: usize,
    capacity: u32,
}

impl<M: CudaModel> Native<M> {
    /// Compiles (or finds in the cache) and loads `model`'s successor code.
    pub fn new(model: M) -> Result<Self, NativeError> {
        Self::new_within(model, u64::MAX)
    }

    /// As [`Native::new`], but [`NativeError::LargeTables`] when the generated code's
    /// tables have more than `max_table_words` words.
    pub fn new_within(model: M, max_table_words: u64) -> Result<Self, NativeError> {
        let generated = model.cuda_source(&[]).map_err(|e| NativeError::Unsupported(e.to_string()))?;
        let table_words: u64 = generated.tables.iter().map(|t| t.data.len() as u64).sum();
        if table_words > max_table_words {
            return Err(NativeError::LargeTables(table_words));
        }
        let words = model.state_words();
        let capacity = generated.max_successors.max(1).min(MAX_BUFFER_WORDS / words.max(1) as u64) as u32;
        let built = compile::build(&compile::unit(&generated))?;
        // SAFETY: the library is our own translation unit: static data and pure
        // functions, no initialisers that could run code at load time.
        let library = unsafe { Library::new(&built.path) }.map_err(|e| NativeError::Load(e.to_string()));
        if built.temporary {
            // Mapped (or failed): the file is no longer needed.
            let _ = std::fs::remove_file(&built.path);
        }
        let library = library?;
        // SAFETY: both symbols are defined by `compile::TAIL` with exactly these C
        // signatures.
        let (function, words_fn) = unsafe {
            let f =
                library.get::<SuccessorsFn>(b"wc_native_successors").map_err(|e| NativeError::Load(e.to_string()))?;
            let w = library.get::<WordsFn>(b"wc_native_words").map_err(|e| NativeError::Load(e.to_string()))?;
            (*f, *w)
        };
        // SAFETY: `wc_native_words` takes no arguments and returns a constant.
        let compiled_words = unsafe { words_fn() } as usize;
        if compiled_words != words {
            return Err(NativeError::Load(format!(
                "the compiled code has {compiled_words}-word states, the model {words}"
            )));
        }
        Ok(Native { model, _library: library, function, words, capacity })
    }
}

impl<M> Native<M> {
    /// Lowers the successors a worker's buffer holds to `successors` (at least 1):
    /// states with more are expanded by the wrapped model. For tests of that path.
    pub fn limit_buffer(&mut self, successors: u32) {
        self.capacity = self.capacity.min(successors.max(1));
    }
}

/// The successor worker of one thread.
pub struct NativeSuccessors<'a, M: Model + 'a> {
    native: &'a Native<M>,
    buffer: Vec<u32>,
    /// The wrapped model's worker, for states the compiled code does not finish.
    fallback: M::Successors<'a>,
}

impl<M: Model> Successors for NativeSuccessors<'_, M> {
    fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        let native = self.native;
        if state.len() != native.words {
            return self.fallback.successors(state, emit);
        }
        let (mut count, mut errors) = (0u32, 0u32);
        // SAFETY: `state` holds the `words` words the function reads; `buffer` holds
        // `capacity * words` words and the function writes at most `capacity`
        // successors of `words` words; the out-pointers are live locals.
        let deadlock = unsafe {
            (native.function)(state.as_ptr(), self.buffer.as_mut_ptr(), native.capacity, &mut count, &mut errors)
        } != 0;
        if errors > 0 || count > native.capacity {
            return self.fallback.successors(state, emit);
        }
        for successor in self.buffer[..count as usize * native.words].chunks_exact(native.words) {
            emit(Step::of(&[]), Ok(successor));
        }
        deadlock
    }
}

impl<M: Model> Describe for Native<M> {
    fn describe_step(&self, step: &Step<'_>) -> String {
        self.model.describe_step(step)
    }
    fn describe_error(&self, error: &EvalError) -> String {
        self.model.describe_error(error)
    }
    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        self.model.describe_changes(before, after)
    }
    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        self.model.describe_state(state)
    }
}

impl<M: Model> Model for Native<M> {
    type Successors<'a>
        = NativeSuccessors<'a, M>
    where
        Self: 'a;

    fn state_words(&self) -> usize {
        self.words
    }
    fn initial_state(&self) -> Vec<u32> {
        self.model.initial_state()
    }
    fn initial_states(&self) -> Vec<Vec<u32>> {
        self.model.initial_states()
    }
    fn successors(&self) -> NativeSuccessors<'_, M> {
        NativeSuccessors {
            native: self,
            buffer: vec![0; self.capacity as usize * self.words],
            fallback: self.model.successors(),
        }
    }
    fn labels(&self) -> Vec<Label> {
        self.model.labels()
    }
    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        self.model.label(state, label)
    }
    fn is_accepting(&self, state: &[u32]) -> bool {
        self.model.is_accepting(state)
    }
    fn property(&self) -> Option<&str> {
        self.model.property()
    }
    fn dependencies(&self) -> Option<Dependencies> {
        self.model.dependencies()
    }
    fn spare_bits(&self) -> Option<BitField> {
        self.model.spare_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashSet, VecDeque};

    const PETERSON: &str = include_str!("../../../examples/peterson.dve");

    /// A model where some steps divide by zero and one state has four successors.
    const ERRORS: &str = "byte x; byte y;
        process P { state s, t; init s;
          trans s -> s { guard x < 4; effect x = x + 1; },
                s -> t { effect y = 10 / (x - 2); },
                s -> t { effect y = 1; },
                s -> t { effect y = 2; },
                t -> s { guard y > 0; effect y = 0; }; }
        system async;";

    /// Per state: the sorted successors, the number of erroring steps, the deadlock flag.
    type Expansion = (Vec<Vec<u32>>, usize, bool);

    fn expand<M: Model>(model: &M, state: &[u32]) -> Expansion {
        let (mut successors, mut errors) = (Vec::new(), 0);
        let deadlock = model.successors().successors(state, |_, r| match r {
            Ok(t) => successors.push(t.to_vec()),
            Err(_) => errors += 1,
        });
        successors.sort();
        (successors, errors, deadlock)
    }

    /// Holds `native` to `model` on every reachable state; returns the number of states.
    fn agrees<M: Model>(model: &M, native: &Native<M>) -> usize {
        let mut seen = HashSet::from([model.initial_state()]);
        let mut queue = VecDeque::from([model.initial_state()]);
        while let Some(state) = queue.pop_front() {
            let want = expand(model, &state);
            assert_eq!(expand(native, &state), want, "state {state:?}");
            for s in &want.0 {
                if seen.insert(s.clone()) {
                    queue.push_back(s.clone());
                }
            }
        }
        seen.len()
    }

    fn load(source: &str) -> warpcheck_dve::Program {
        warpcheck_dve::load(source).unwrap_or_else(|d| panic!("{}", d.render("test", source))).model
    }

    #[test]
    fn native_successors_equal_the_closures_in_every_state() {
        let model = load(PETERSON);
        let native = Native::new(load(PETERSON)).expect("a C++ compiler");
        assert_eq!(agrees(&model, &native), 70);
    }

    #[test]
    fn erroring_steps_and_full_buffers_go_to_the_wrapped_model() {
        let model = load(ERRORS);
        let mut native = Native::new(load(ERRORS)).expect("a C++ compiler");
        let states = agrees(&model, &native);
        native.limit_buffer(1);
        assert_eq!(agrees(&model, &native), states);
        // The erroring step reaches the engines as the model's own error.
        let (mut want, mut got) = (Vec::new(), Vec::new());
        let mut state = model.initial_state();
        // x = 2 after two increments: the division by zero is enabled.
        for _ in 0..2 {
            let mut next = None;
            model.successors().successors(&state, |_, r| {
                if let Ok(t) = r {
                    if next.is_none() && t != &state[..] {
                        next = Some(t.to_vec());
                    }
                }
            });
            state = next.unwrap();
        }
        model.successors().successors(&state, |_, r| want.extend(r.err()));
        native.successors().successors(&state, |_, r| got.extend(r.err()));
        assert!(!want.is_empty());
        assert_eq!(got, want);
    }
}
