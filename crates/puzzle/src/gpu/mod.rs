//! Breadth-first search of the permutation puzzles (sliding tile, pancake, Top-Spin), of
//! Frogs-and-Toads / Fore-and-Aft and of peg solitaire on a CUDA GPU, after the thesis's
//! Ch. 14.2 (digest 003b, part IV). The kernels are in
//! `puzzles.cu` beside this file, compiled by NVRTC at run time through
//! `warpcheck-cuda`; the same source compiles as C on the host ([`host`]), where the
//! tests hold its successors to [`Puzzle::successors`] and its level loop to the CPU.
//!
//! **Layout: seen + two frontiers, 3 bits per index** (the CPU's two-bit BFS also
//! holds 3: depth mod 3 and a frontier bit). `seen` has the states of depth < L,
//! `cur` those of depth L-1, `next` collects depth L. A level is two kernels:
//! `pz_expand` (a warp per 32 `cur` words, grid-stride: their set bits numbered in
//! shared memory and dealt out to the lanes, so that every lane expands a state
//! whatever the frontier's density; each state is unranked, moved and ranked in
//! registers, and every successor absent from `seen` and `next` is set in `next` with
//! `atomicOr`), then `pz_merge` (`seen |= next`, `cur = 0`,
//! and the popcount of `next`: the layer's size, exact whatever the races). The host
//! swaps `cur` and `next` and reads one counter per level. Why not the CPU's coding:
//! the random reads of a level go to a one-bit `seen`, half the bytes of two-bit
//! cells, so `seen` stays in the H100's 50 MB L2 cache up to 400 M indices (sliding
//! tile 3x4 and 2x6, pancake 11); no depth test and no clearing atomics (the merge
//! pass clears the old frontier with plain stores). The depth mod 3 is not kept: the
//! GPU counts layers, and shortest solutions (`--solve`) run on the CPU.
//!
//! **Limits.** A permutation of at most 16 entries ([`MAX_ENTRIES`], one nibble each
//! in a `u64`): every instance whose vectors fit a device (16! bits are 2.6 TB). The
//! frogs' boards index by hole and colex rank of the black set, peg solitaire's by
//! layer and binomial rank; their binomial coefficients, layer offsets and moves are a
//! table in device memory ([`table`]).
//! Device memory is checked against the three vectors before anything is allocated
//! ([`Error::Memory`]).

pub mod host;

use std::sync::Arc;
use std::time::Instant;

use warpcheck_cuda::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig};
use warpcheck_cuda::{device_ptr, grid, CudaError, Device, KernelArg, Timer};

use crate::domains::frogs::Frogs;
use crate::domains::pancake::Pancake;
use crate::domains::peg_solitaire::{self, PegSolitaire, Rules};
use crate::domains::sliding_tile::SlidingTile;
use crate::domains::top_spin::TopSpin;
use crate::rank::permutation::FACTORIAL;
use crate::search::{Algorithm, Options, Progress, Report};
use crate::{AnyPuzzle, Error, Puzzle};

/// Whether a CUDA driver and a device are present.
pub use warpcheck_cuda::device_available;

/// The kernels' source (CUDA C that also compiles as C).
pub const SOURCE: &str = include_str!("puzzles.cu");

/// The most entries of a ranked permutation on the GPU (one nibble each in a `u64`).
pub const MAX_ENTRIES: u32 = 16;

/// Device memory left to the context and the module beyond the bit vectors.
const RESERVE: u64 = 256 << 20;

/// The instance as the kernels see it (`Pz` in puzzles.cu, field for field).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Indices.
    pub size: u64,
    /// Sliding tile: indices per blank cell, `(N-1)!/2`; else `size`.
    pub bucket: u64,
    /// `m!/2`, for folding.
    pub half: u64,
    /// Frogs and peg solitaire: the device address of [`table`] (0 for the others and
    /// on the host).
    pub table: u64,
    /// 0 sliding tile, 1 pancake, 2 Top-Spin, 3 frogs, 4 peg solitaire.
    pub kind: u32,
    /// Entries of the ranked permutation; peg solitaire: jumps.
    pub m: u32,
    pub rows: u32,
    pub cols: u32,
    /// Top-Spin's twist length; peg solitaire: 1 when pegs also jump along diagonals.
    pub k: u32,
    /// Top-Spin: index = rank mod `m!/2`, even parity.
    pub folded: u32,
    /// Frogs: cells of the board and pieces of each colour; peg solitaire: holes and
    /// the start's pegs.
    pub cells: u32,
    pub pieces: u32,
}

// SAFETY: `#[repr(C)]` with only `u64` and `u32` fields, in the order and of the types
// of `Pz` in puzzles.cu (four u64 then eight u32: no padding in either), so its bytes are
// the kernels' parameter as it is.
unsafe impl DeviceRepr for Params {}

fn too_long(name: String, m: u32) -> Error {
    Error::Unsupported(format!(
        "{name} has no GPU path: its permutations have {m} entries, the GPU's at most {MAX_ENTRIES}"
    ))
}

impl Params {
    fn new(puzzle: &impl Puzzle, kind: u32, m: u32) -> Result<Params, Error> {
        if m > MAX_ENTRIES {
            return Err(too_long(puzzle.name(), m));
        }
        let size = puzzle.size();
        let half = FACTORIAL[m as usize] / 2;
        Ok(Params {
            size,
            bucket: size,
            half,
            table: 0,
            kind,
            m,
            rows: 0,
            cols: 0,
            k: 0,
            folded: 0,
            cells: 0,
            pieces: 0,
        })
    }

    pub fn sliding_tile(p: &SlidingTile) -> Result<Params, Error> {
        let (rows, cols) = p.dims();
        let m = rows * cols - 1;
        Ok(Params { bucket: FACTORIAL[m as usize] / 2, rows, cols, ..Params::new(p, 0, m)? })
    }

    pub fn pancake(p: &Pancake) -> Result<Params, Error> {
        Params::new(p, 1, p.pancakes())
    }

    pub fn top_spin(p: &TopSpin) -> Result<Params, Error> {
        let (n, k) = p.n_k();
        // The ring (n nibbles) must fit the u64 too.
        if n > MAX_ENTRIES {
            return Err(too_long(p.name(), n));
        }
        Ok(Params { k, folded: u32::from(p.folded()), ..Params::new(p, 2, n - 1)? })
    }

    /// Frogs-and-Toads and Fore-and-Aft (hole-colex indices; [`table`] gives the rest).
    pub fn frogs(p: &Frogs) -> Result<Params, Error> {
        if !p.hole_colex() {
            return Err(Error::Unsupported(format!("{}: the GPU indexes boards by hole and colex rank", p.name())));
        }
        Ok(Params { bucket: p.per_hole(), cells: p.cells(), pieces: p.pieces(), ..Params::new(p, PZ_FROGS, 0)? })
    }

    /// Peg solitaire on the English board, from any start, under either rules.
    pub fn peg_solitaire(p: &PegSolitaire) -> Result<Params, Error> {
        let m = peg_solitaire::jumps(p.rules()).len() as u32;
        let k = u32::from(p.rules() == Rules::Diagonal);
        Ok(Params { m, k, cells: peg_solitaire::HOLES, pieces: p.start_pegs(), ..Params::new(p, PZ_PEG, 0)? })
    }

    /// The kernels' view of `puzzle`, or why it has no GPU path.
    pub fn of(puzzle: &AnyPuzzle) -> Result<Params, Error> {
        match puzzle {
            AnyPuzzle::SlidingTile(p) => Params::sliding_tile(p),
            AnyPuzzle::Pancake(p) => Params::pancake(p),
            AnyPuzzle::TopSpin(p) => Params::top_spin(p),
            AnyPuzzle::Frogs(p) => Params::frogs(p),
            AnyPuzzle::PegSolitaire(p) => Params::peg_solitaire(p),
        }
    }
}

/// The table of the frogs and of peg solitaire (`frogs_table`, `peg_table`); empty
/// for the other puzzles.
pub fn table(params: &Params) -> Vec<u64> {
    match params.kind {
        PZ_FROGS => frogs_table(params),
        PZ_PEG => peg_table(params),
        _ => Vec::new(),
    }
}

/// Peg solitaire's table (`pz_peg` in puzzles.cu): `C(n, k)` at `n * (holes + 1) + k`
/// for `n, k <= holes`, the layers' first indices (start pegs + 2 words), then per jump
/// the mask of its three holes and the mask of the two that need a peg.
fn peg_table(params: &Params) -> Vec<u64> {
    let n = params.cells;
    let mut t = Vec::new();
    for a in 0..=n {
        t.extend((0..=n).map(|b| crate::rank::binomial::binomial(a, b)));
    }
    let mut offset = 0;
    t.push(0);
    for d in 0..=params.pieces {
        offset += crate::rank::binomial::binomial(n, params.pieces - d);
        t.push(offset);
    }
    let rules = if params.k == 1 { Rules::Diagonal } else { Rules::Orthogonal };
    for (a, b, c) in peg_solitaire::jumps(rules) {
        t.push((1 << a) | (1 << b) | (1 << c));
        t.push((1 << a) | (1 << b));
    }
    t
}

/// The frogs' table (`pz_frogs` in puzzles.cu): `C(c, j)` at `c * (pieces + 1) + j` for
/// `c < cells`, then per hole 8 words, the source cells of its moves plus one (0: no
/// more).
fn frogs_table(params: &Params) -> Vec<u64> {
    // The board of side s has 2s² - 1 cells.
    let side = (1..=5u32).find(|s| 2 * s * s - 1 == params.cells).expect("a frogs board");
    let frogs = Frogs::new(side, crate::domains::frogs::FrogIndex::HoleColex).expect("a valid side");
    let stride = params.pieces as usize + 1;
    let mut t = vec![0u64; params.cells as usize * stride + 8 * params.cells as usize];
    for c in 0..params.cells {
        for j in 0..=params.pieces {
            t[c as usize * stride + j as usize] = crate::rank::binomial::binomial(c, j);
        }
    }
    let moves = params.cells as usize * stride;
    for hole in 0..params.cells {
        for (i, src) in frogs.sources(hole).enumerate() {
            t[moves + 8 * hole as usize + i] = u64::from(src) + 1;
        }
    }
    t
}

/// Whether `algorithm` on `puzzle` runs on the GPU, or why not (for `--backend`).
pub fn gpu_path(puzzle: &AnyPuzzle, algorithm: Algorithm) -> Result<(), String> {
    let params = Params::of(puzzle).map_err(|e| e.to_string())?;
    match algorithm {
        Algorithm::Auto | Algorithm::TwoBit => Ok(()),
        Algorithm::OneBitAlternation if params.kind == PZ_SLIDING => Ok(()),
        Algorithm::OneBitAlternation => {
            Err("the GPU runs the one-bit BFS with move alternation on the sliding-tile puzzle only".into())
        }
        _ => Err(format!("the GPU runs the two-bit BFS and the one-bit alternation, not {}", algorithm.name())),
    }
}

/// `Params::kind` of the sliding-tile puzzle, the frogs and peg solitaire (`PZ_SLIDING`,
/// `PZ_FROGS`, `PZ_PEG` in puzzles.cu).
const PZ_SLIDING: u32 = 0;
const PZ_FROGS: u32 = 3;
const PZ_PEG: u32 = 4;

/// Device bytes of a search over `size` indices: three bit vectors and a counter.
pub fn device_bytes(size: u64) -> u64 {
    size.div_ceil(64).saturating_mul(24).saturating_add(8)
}

/// Device bytes of the one-bit search with move alternation: one bit vector and a
/// counter.
pub fn one_bit_device_bytes(size: u64) -> u64 {
    size.div_ceil(64).saturating_mul(8).saturating_add(8)
}

/// A GPU search: the CPU's [`Report`] and where the time went.
#[derive(Clone, Debug)]
pub struct GpuReport {
    pub report: Report,
    /// The device's name.
    pub device: String,
    /// The levels on the device: CUDA events around all launches and the per-level
    /// reads of the counter.
    pub gpu_seconds: f64,
    /// NVRTC compilation (or the cache lookup) and module load.
    pub compile_seconds: f64,
}

fn cuda(e: CudaError) -> Error {
    Error::Gpu(e.to_string())
}

/// Searches `puzzle` from its start on CUDA device `ordinal`. `options`: the algorithm
/// (`Auto` or `TwoBit`), `max_depth`, `progress`, and `memory`, which caps the device
/// bytes as it caps host bytes on the CPU.
pub fn search(puzzle: &AnyPuzzle, options: &Options, ordinal: usize) -> Result<GpuReport, Error> {
    let clock = Instant::now();
    let asked = options.algorithm.unwrap_or(Algorithm::Auto);
    gpu_path(puzzle, asked).map_err(Error::Unsupported)?;
    let mut params = Params::of(puzzle)?;
    let device = Device::open(ordinal).map_err(cuda)?;
    let allowed = device.free_memory().map_err(cuda)?.saturating_sub(RESERVE).min(options.memory.unwrap_or(u64::MAX));
    // `Auto`: the two-bit BFS (3 bits per index) where it fits, else the one-bit search.
    let one_bit = asked == Algorithm::OneBitAlternation
        || (asked == Algorithm::Auto
            && device_bytes(params.size) > allowed
            && params.kind == PZ_SLIDING
            && one_bit_device_bytes(params.size) <= allowed);
    let (algorithm, needed) = if one_bit {
        (Algorithm::OneBitAlternation, one_bit_device_bytes(params.size))
    } else {
        (Algorithm::TwoBit, device_bytes(params.size))
    };
    if needed > allowed {
        let what = match algorithm {
            Algorithm::TwoBit => format!("the GPU's seen, frontier and next bit vectors of {}", puzzle.name()),
            _ => format!("the GPU's bit vector of {}", puzzle.name()),
        };
        return Err(Error::Memory { what, needed, allowed });
    }
    let module = device.load(SOURCE, &[]).map_err(cuda)?;
    // The frogs' table, alive until the search ends.
    let host_table = table(&params);
    let device_table = if host_table.is_empty() {
        None
    } else {
        let t = device.stream().clone_htod(&host_table).map_err(|e| cuda(e.into()))?;
        params.table = device_ptr(&t, device.stream());
        Some(t)
    };
    let function = |name: &str| module.function(name).map_err(cuda);
    let run = Run {
        expand: function("pz_expand")?,
        merge: function("pz_merge")?,
        expand_colour: function("pz_expand_colour")?,
        count_colour: function("pz_count_colour")?,
        stream: device.stream(),
        max_blocks: device.multiprocessors() * 64,
    };
    let progress = |level: u32, new: u64, states: u64| {
        if let Some(f) = options.progress {
            f(&Progress { step: level, new_states: new, states, seconds: clock.elapsed().as_secs_f64() });
        }
    };
    let max_depth = options.max_depth.unwrap_or(u32::MAX);
    let (layers, expansions, complete, gpu_seconds) = if one_bit {
        run.alternation(&params, puzzle.start(), max_depth, &progress).map_err(cuda)?
    } else {
        let (layers, complete, seconds) = run.levels(&params, puzzle.start(), max_depth, &progress).map_err(cuda)?;
        let states: u64 = layers.iter().sum();
        // Every layer is expanded but the last when the search stopped at a depth.
        let expansions = if complete { states } else { states - layers.last().copied().unwrap_or(0) };
        (layers, expansions, complete, seconds)
    };
    drop(device_table);
    let states: u64 = layers.iter().sum();
    let report = Report {
        puzzle: puzzle.name(),
        algorithm,
        index_space: params.size,
        bytes: needed,
        states,
        depth: Some(layers.len() as u32 - 1),
        scans: layers.len() as u32,
        layers: Some(layers),
        expansions,
        seconds: clock.elapsed().as_secs_f64(),
        complete,
    };
    Ok(GpuReport { report, device: device.name().to_string(), gpu_seconds, compile_seconds: module.seconds })
}

/// The loaded kernels on the device's one stream.
struct Run<'a> {
    expand: CudaFunction,
    merge: CudaFunction,
    expand_colour: CudaFunction,
    count_colour: CudaFunction,
    stream: &'a Arc<CudaStream>,
    max_blocks: u32,
}

impl Run<'_> {
    fn launch(&self, f: &CudaFunction, cfg: LaunchConfig, args: &[&dyn KernelArg]) -> Result<(), CudaError> {
        // SAFETY: `warpcheck_cuda::launch`'s contract holds. (1) The callers pass
        // `pz_expand(Pz, const u64*, const u64*, u64*, u64)` a `Params` (the `Pz`
        // layout, see its `DeviceRepr`), three device addresses and the word count;
        // `pz_merge(u64*, u64*, const u64*, u64, u64*)` three addresses, the word count
        // and the counter's address; `pz_expand_colour(Pz, u64*, u64, u32)` and
        // `pz_count_colour(Pz, const u64*, u64, u32, u64*)` a `Params`, the vector's
        // address, the word count, the colour as `u32` and the counter's address;
        // addresses and counts as `u64`; blocks of 256 threads, whole warps and at most
        // `PZ_BLOCK`, as the expansions' shared rounds need. (2) The addresses are of the
        // vectors and the counter of `levels` or `alternation`, which live until its
        // end, after a synchronisation. (3) Each vector holds `words` words and the
        // kernels touch words `< words` only (grid-stride, rounds checked word by word);
        // every successor is `< size <= 64 words`, and the counting kernels write one
        // counter. (4) The host reads the counter only by a copy on the same stream.
        unsafe { warpcheck_cuda::launch(self.stream, f, cfg, args) }
    }

    /// The one-bit search with move alternation (search/one_bit.rs's `alternation` on
    /// the device): layers, expansions (re-expansions of older layers included),
    /// whether it ran to the end, kernel seconds.
    fn alternation(
        &self,
        params: &Params,
        start: u64,
        max_depth: u32,
        progress: &dyn Fn(u32, u64, u64),
    ) -> Result<(Vec<u64>, u64, bool, f64), CudaError> {
        let s = self.stream;
        let words = params.size.div_ceil(64);
        let len = usize::try_from(words).map_err(|_| CudaError::Internal("index space beyond usize".into()))?;
        let mut open: CudaSlice<u64> = s.alloc_zeros(len)?;
        let mut count: CudaSlice<u64> = s.alloc_zeros(1)?;
        let w = (start / 64) as usize;
        s.memcpy_htod(&[1u64 << (start % 64)], &mut open.slice_mut(w..w + 1))?;
        let colour = |b: u64| ((b / u64::from(params.cols) + b % u64::from(params.cols)) % 2) as u32;
        let first = colour(start / params.bucket);
        let mut counts = [0u64; 2];
        counts[first as usize] = 1;
        let cfg = grid(words, 256, self.max_blocks);
        let (mut layers, mut expansions) = (vec![1u64], 0u64);
        progress(0, 1, 1);
        let timer = Timer::new(s)?;
        timer.start(s)?;
        let mut complete = false;
        while (layers.len() as u32) <= max_depth {
            let scanned = (first + layers.len() as u32 - 1) % 2;
            let other = 1 - scanned;
            expansions += counts[scanned as usize];
            let (popen, pcount) = (device_ptr(&open, s), device_ptr(&count, s));
            self.launch(&self.expand_colour, cfg, &[params, &popen, &words, &scanned])?;
            s.memcpy_htod(&[0u64], &mut count)?;
            self.launch(&self.count_colour, cfg, &[params, &popen, &words, &other, &pcount])?;
            let mut now = [0u64];
            s.memcpy_dtoh(&count, &mut now)?;
            s.synchronize()?;
            let new = now[0] - counts[other as usize];
            counts[other as usize] = now[0];
            if new == 0 {
                complete = true;
                break;
            }
            layers.push(new);
            progress(layers.len() as u32 - 1, new, counts[0] + counts[1]);
        }
        let seconds = timer.stop(s)?;
        drop((open, count));
        s.synchronize()?;
        Ok((layers, expansions, complete, seconds))
    }

    /// The level loop: layers, whether the search ran to the end, kernel seconds.
    fn levels(
        &self,
        params: &Params,
        start: u64,
        max_depth: u32,
        progress: &dyn Fn(u32, u64, u64),
    ) -> Result<(Vec<u64>, bool, f64), CudaError> {
        let s = self.stream;
        let words = params.size.div_ceil(64);
        let len = usize::try_from(words).map_err(|_| CudaError::Internal("index space beyond usize".into()))?;
        let mut seen: CudaSlice<u64> = s.alloc_zeros(len)?;
        let mut cur: CudaSlice<u64> = s.alloc_zeros(len)?;
        let mut next: CudaSlice<u64> = s.alloc_zeros(len)?;
        let mut count: CudaSlice<u64> = s.alloc_zeros(1)?;
        let (w, bit) = ((start / 64) as usize, [1u64 << (start % 64)]);
        s.memcpy_htod(&bit, &mut seen.slice_mut(w..w + 1))?;
        s.memcpy_htod(&bit, &mut cur.slice_mut(w..w + 1))?;
        let cfg = grid(words, 256, self.max_blocks);
        let mut layers = vec![1u64];
        progress(0, 1, 1);
        let timer = Timer::new(s)?;
        timer.start(s)?;
        let mut complete = false;
        while (layers.len() as u32) <= max_depth {
            let (pseen, pcur, pnext, pcount) =
                (device_ptr(&seen, s), device_ptr(&cur, s), device_ptr(&next, s), device_ptr(&count, s));
            self.launch(&self.expand, cfg, &[params, &pseen, &pcur, &pnext, &words])?;
            s.memcpy_htod(&[0u64], &mut count)?;
            self.launch(&self.merge, cfg, &[&pseen, &pcur, &pnext, &words, &pcount])?;
            let mut found = [0u64];
            s.memcpy_dtoh(&count, &mut found)?;
            s.synchronize()?;
            if found[0] == 0 {
                complete = true;
                break;
            }
            layers.push(found[0]);
            progress(layers.len() as u32 - 1, found[0], layers.iter().sum());
            std::mem::swap(&mut cur, &mut next);
        }
        let seconds = timer.stop(s)?;
        // The vectors are freed on the stream after the last launch (their drop).
        drop((seen, cur, next, count));
        s.synchronize()?;
        Ok((layers, complete, seconds))
    }
}
