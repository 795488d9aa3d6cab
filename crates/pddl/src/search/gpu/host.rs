//! The GPU search's kernels compiled for the host (the system C++ compiler, through
//! `warpcheck_native::compile`) and run one work item after another on host buffers
//! laid out as the device's: the tests' stand-in for a GPU.

use libloading::{Library, Symbol};
use warpcheck_model::cuda::host::HOST_DEFINES;

use super::{kernel_source, Ctl, Emulation, GpuSearchError, Kernels, UcsArgs, CTL_WORDS};
use crate::task::{State, Task};

type Start = unsafe extern "C" fn(*const UcsArgs, *const u32);
type Round = unsafe extern "C" fn(*const UcsArgs);
type Rebuild = unsafe extern "C" fn(*const UcsArgs, u32);

/// The host buffers (never resized after `new`: the argument block holds their
/// addresses) and the loaded library.
pub(super) struct HostKernels {
    words: usize,
    states: Vec<u32>,
    best: Vec<u64>,
    closed: Vec<u8>,
    table: Vec<u64>,
    ctl: Ctl,
    counters: Vec<u64>,
    open: Vec<u64>,
    cost: Vec<u32>,
    /// A*'s pattern databases and each state's h (empty for Dijkstra).
    pdb: Vec<u32>,
    h: Vec<u32>,
    /// The model's tables, by the name of the function that points the library to one.
    tables: Vec<(String, Vec<u32>)>,
    stride: u32,
    compact: u32,
    cap: u32,
    limit: u32,
    library: Library,
}

fn failed(e: impl std::fmt::Display) -> GpuSearchError {
    GpuSearchError::Failed(e.to_string())
}

impl HostKernels {
    pub(super) fn new(
        task: &Task,
        costs: &[u32],
        pdb: Option<&[u32]>,
        emulation: &Emulation,
    ) -> Result<HostKernels, GpuSearchError> {
        let generated = kernel_source(task)?;
        // The tables are pointers set at run time, so that the library depends on the
        // task's state size and stack depth only and tasks alike share one compilation
        // (and one loaded library: the pointers are per thread, set before each call).
        let mut binders = String::new();
        for t in &generated.tables {
            binders += &format!("extern \"C\" void wc_bind_{0}(const u32 *p) {{ {0} = p; }}\n", t.name);
        }
        let unit = format!(
            "{HOST_DEFINES}#undef WC_TABLE\n#define WC_TABLE(name) static thread_local const u32 *name;\n{}{binders}",
            generated.source
        );
        let built = warpcheck_native::compile::build(&unit).map_err(failed)?;
        // SAFETY: the library is the unit above, compiled by `build`: loading it runs no
        // initialisers beyond the C++ runtime's, and its symbols are used with the
        // signatures ucs.cu gives them (see `call`).
        let library = unsafe { Library::new(&built.path) }.map_err(failed)?;
        if built.temporary {
            let _ = std::fs::remove_file(&built.path);
        }
        let tables = generated.tables.iter().map(|t| (format!("wc_bind_{}", t.name), t.data.clone())).collect();
        let (limit, n, words) = (emulation.limit, emulation.limit as usize, task.words.max(1));
        Ok(HostKernels {
            words,
            states: vec![0; n * words],
            best: vec![0; n],
            closed: vec![0; n],
            table: vec![0; 2 * n + 1],
            ctl: [0; CTL_WORDS],
            counters: vec![0; 3],
            open: vec![0; limit as usize],
            cost: costs.to_vec(),
            pdb: pdb.map_or_else(Vec::new, <[u32]>::to_vec),
            h: if pdb.is_some() { vec![0; n] } else { Vec::new() },
            tables,
            stride: emulation.stride.max(1),
            compact: emulation.compact,
            cap: emulation.cap.max(1),
            limit,
            library,
        })
    }

    fn args(&mut self) -> UcsArgs {
        UcsArgs {
            states: self.states.as_mut_ptr() as u64,
            best: self.best.as_mut_ptr() as u64,
            closed: self.closed.as_mut_ptr() as u64,
            table: self.table.as_mut_ptr() as u64,
            capacity: self.table.len() as u64,
            ctl: self.ctl.as_mut_ptr() as u64,
            counters: self.counters.as_mut_ptr() as u64,
            open: self.open.as_mut_ptr() as u64,
            cost: self.cost.as_ptr() as u64,
            pdb: if self.pdb.is_empty() { 0 } else { self.pdb.as_ptr() as u64 },
            h: if self.h.is_empty() { 0 } else { self.h.as_mut_ptr() as u64 },
            limit: self.limit,
            room: self.open.len() as u32,
            compact: self.compact,
            stride: self.stride,
            cap: self.cap,
            pad: 0,
        }
    }

    /// Binds the tables and calls `name` with the argument block; returns the control
    /// block.
    fn call<T>(&mut self, name: &[u8], run: impl FnOnce(&Symbol<T>, &UcsArgs)) -> Result<Ctl, GpuSearchError> {
        for (binder, data) in &self.tables {
            // SAFETY: `wc_bind_NAME(const u32 *)` is defined in the unit (see `new`); it
            // sets this thread's pointer to `data`, which lives in `self` while the call
            // below reads it.
            unsafe {
                let bind = self.library.get::<unsafe extern "C" fn(*const u32)>(binder.as_bytes());
                bind.map_err(failed)?(data.as_ptr());
            }
        }
        let args = self.args();
        // SAFETY: `T` is the symbol's signature in ucs.cu (the `Start`, `Round` and
        // `Rebuild` types above, one per entry point).
        let symbol = unsafe { self.library.get::<T>(name) }.map_err(failed)?;
        run(&symbol, &args);
        Ok(self.ctl)
    }
}

/// The three calls below: the argument block holds the addresses of this struct's
/// buffers, which live and keep their size as long as it does; the entry points index
/// them within the sizes the block gives (the store's `limit`, the table's `capacity`,
/// the list's `room`, the cost per action, an h per stored state), as on the device,
/// and the pattern databases within the offsets they hold (pdb.rs builds them so).
impl Kernels for HostKernels {
    fn write(&mut self, ctl: &Ctl) -> Result<(), GpuSearchError> {
        self.ctl = *ctl;
        Ok(())
    }

    fn start(&mut self, init: &[u32]) -> Result<Ctl, GpuSearchError> {
        let init = init.to_vec();
        self.call::<Start>(b"wc_ucs_start_host", |f, a| {
            // SAFETY: see the note above this `impl`.
            unsafe { f(a, init.as_ptr()) }
        })
    }

    fn rounds(&mut self, n: u32) -> Result<Ctl, GpuSearchError> {
        self.call::<Round>(b"wc_ucs_round_host", |f, a| {
            for _ in 0..n {
                // SAFETY: see the note above this `impl`.
                unsafe { f(a) }
            }
        })
    }

    fn rebuild(&mut self, stored: u32) -> Result<Ctl, GpuSearchError> {
        self.call::<Rebuild>(b"wc_ucs_rebuild_host", |f, a| {
            // SAFETY: see the note above this `impl`.
            unsafe { f(a, stored) }
        })
    }

    fn link(&mut self, id: u32) -> Result<(u32, u32, State), GpuSearchError> {
        let (i, w) = (id as usize, self.words);
        let best = self.best[i];
        Ok(((best >> 32) as u32, best as u32, self.states[i * w..(i + 1) * w].to_vec()))
    }

    fn counters(&mut self) -> Result<[u64; 3], GpuSearchError> {
        Ok([self.counters[0], self.counters[1], self.counters[2]])
    }

    fn room(&self) -> (u64, u64) {
        let bytes = self.states.len() * 4
            + self.best.len() * 9
            + self.table.len() * 8
            + self.open.len() * 8
            + (self.h.len() + self.pdb.len()) * 4;
        (u64::from(self.limit), bytes as u64)
    }
}
