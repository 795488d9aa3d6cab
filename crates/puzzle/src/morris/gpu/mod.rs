//! Nine Men's Morris on a CUDA GPU: the retrograde analysis of [`super::retro`] and
//! the placing phase of [`super::opening`], one thread per board, every database and
//! ply in device memory. The kernels are in `morris.cu` beside this file; this module
//! is their host loop, the same loop as the CPU's, written once against [`Machine`]:
//! - [`device::Gpu`]: the kernels compiled by NVRTC and run on a CUDA device;
//! - [`host::Host`]: the same source compiled by the system C++ compiler and run on a
//!   grid of one thread, so that the tests hold the loop and the kernels to the CPU's
//!   solve byte for byte without a GPU.
//!
//! Device memory: the 64 MiB class table and the small tables, every solved database
//! (9.2 GB for all of Nine Men's Morris), while a pair is solved a byte of best capture
//! per slot, and in the placing phase two plies (up to 14 GB). The databases are copied
//! back to the host (for files, counts and lookups); the plies only where kept.

pub mod device;
pub mod host;

use super::board::{MILLS, MILLS_AT, NEIGHBOURS, POINTS};
use super::files;
use super::index::Index;
use super::opening::{hands, Ply, PlyStats};
use super::retro::{self, DatabaseStats, Databases};
use super::solve::Event;
use super::value::MAX_PLIES;
use crate::rank::binomial::binomial;
use crate::Error;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// The kernels' source (CUDA C++ that also compiles for the host with `MM_HOST`).
pub const SOURCE: &str = include_str!("morris.cu");

/// The arguments of every kernel (`MmArgs` in morris.cu, field for field).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Args {
    /// The address of the table words ([`tables`]).
    pub tables: u64,
    /// The address of four `u64` counters (set by [`Machine::run`]).
    pub counters: u64,
    /// The table the kernel works on.
    pub values: u64,
    /// The retrograde analysis: the best capture's byte per slot.
    pub captures: u64,
    /// Slots of `values`.
    pub slots: u64,
    /// Pieces of the side to move and of the other.
    pub a: u32,
    pub b: u32,
    /// `mm_level`: the byte of the boards decided a level ago.
    pub frontier: u32,
    /// `mm_level`, `mm_captures`: the byte the level decides.
    pub target: u32,
    /// `mm_place`: the pieces in hand.
    pub mover_hand: u32,
    pub other_hand: u32,
    /// Per `10 a + b`, the address of the table lookups reach (0: none).
    pub db: [u64; 100],
}

// SAFETY: `#[repr(C)]` with five `u64`, six `u32` and a `[u64; 100]`, in the order and
// of the types of `MmArgs` in morris.cu (the array starts at byte 64: no padding in
// either), so its bytes are the kernels' parameter as it is.
unsafe impl warpcheck_cuda::driver::DeviceRepr for Args {}

impl Args {
    fn new(tables: u64) -> Args {
        Args {
            tables,
            counters: 0,
            values: 0,
            captures: 0,
            slots: 0,
            a: 0,
            b: 0,
            frontier: 0,
            target: 0,
            mover_hand: 0,
            other_hand: 0,
            db: [0; 100],
        }
    }
}

/// The kernels of morris.cu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Level 0 and the best captures of a database (counter 2: the largest capture byte).
    Start,
    /// One level from a frontier (counter 0: decided, counter 1: checked).
    Level,
    /// A level of wins from the captures (counter 0: decided).
    Captures,
    /// The marks of a level of losses cleared.
    Clear,
    /// A ply of the placing phase (counter 3: a value too long for a byte).
    Place,
    /// Wins, losses, draws and the longest (counters 0 to 3).
    Count,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 6] =
        [Kernel::Start, Kernel::Level, Kernel::Captures, Kernel::Clear, Kernel::Place, Kernel::Count];

    /// Its name in morris.cu.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Start => "mm_start",
            Kernel::Level => "mm_level",
            Kernel::Captures => "mm_captures",
            Kernel::Clear => "mm_clear",
            Kernel::Place => "mm_place",
            Kernel::Count => "mm_count",
        }
    }
}

/// Where the kernels run: buffers of bytes (zeroed, whole words) and launches.
pub trait Machine {
    /// A buffer in the machine's memory.
    type Buf;
    /// The device's name.
    fn name(&self) -> String;
    /// A zeroed buffer of at least `bytes` bytes, rounded up to whole `u32` words; an
    /// [`Error::Memory`] naming `what` when it does not fit.
    fn alloc(&self, bytes: u64, what: &str) -> Result<Self::Buf, Error>;
    /// The buffer's address, for [`Args`].
    fn address(&self, buf: &Self::Buf) -> u64;
    /// Copies `data` to the start of `buf`.
    fn upload(&self, buf: &mut Self::Buf, data: &[u8]) -> Result<(), Error>;
    /// The first `len` bytes of `buf`.
    fn download(&self, buf: &Self::Buf, len: u64) -> Result<Vec<u8>, Error>;
    /// Runs `kernel` over `args.slots` slots with the counters zeroed, and returns
    /// them when it has finished.
    fn run(&self, kernel: Kernel, args: &Args) -> Result<[u64; 4], Error>;
}

/// Offsets of the table words (`MM_*` in morris.cu).
const IMAGES: usize = 1 << POINTS;
const BINOM: usize = IMAGES + 16 * 3 * 256;
const NB: usize = BINOM + 25 * 25;
const MILLS_AT_WORDS: usize = NB + 24;
const MILLS_WORDS: usize = MILLS_AT_WORDS + 48;
const REP_OFF: usize = MILLS_WORDS + 16;
const REPS: usize = REP_OFF + 11;

/// The table words of morris.cu: the index ([`Index`]'s class table, symmetry images,
/// representatives and stabilisers of sets of up to 9 points), binomials, neighbours
/// and mills.
pub fn tables(index: &Index) -> Vec<u32> {
    let mut t = index.canon.clone();
    for sym in index.images.iter() {
        for chunk in sym {
            t.extend_from_slice(chunk);
        }
    }
    debug_assert_eq!(t.len(), BINOM);
    for n in 0..25 {
        t.extend((0..25).map(|k| binomial(n, k) as u32));
    }
    t.extend_from_slice(&NEIGHBOURS);
    t.extend(MILLS_AT.iter().flatten());
    t.extend_from_slice(&MILLS);
    debug_assert_eq!(t.len(), REP_OFF);
    let mut first = 0u32;
    for a in 0..=10 {
        t.push(first);
        first += index.reps.get(a).map_or(0, |r| r.len() as u32);
    }
    debug_assert_eq!(t.len(), REPS);
    for a in 0..10 {
        t.extend_from_slice(&index.reps[a]);
    }
    for a in 0..10 {
        t.extend(index.stabilisers[a].iter().map(|&s| u32::from(s)));
    }
    t
}

/// What a solve on a [`Machine`] gives: the solve of [`super::solve()`].
pub struct Solved {
    pub databases: Databases,
    pub database_stats: Vec<DatabaseStats>,
    pub plies: BTreeMap<u32, Ply>,
    pub ply_stats: Vec<PlyStats>,
}

/// Solves the game of `pieces` a side on `machine`: the moving-phase databases (read
/// from `dir` where found there, written there when solved; at most `allowed` bytes of
/// them on the host), then with `opening` the placing phase, keeping the plies in
/// `keep`.
pub fn solve<M: Machine>(
    machine: &M,
    pieces: u32,
    allowed: u64,
    dir: Option<&Path>,
    opening: bool,
    keep: &[u32],
    progress: &mut dyn FnMut(Event),
) -> Result<Solved, Error> {
    let index = Index::get();
    let words = tables(index);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut table = machine.alloc(bytes.len() as u64, "the Nine Men's Morris index tables")?;
    machine.upload(&mut table, &bytes)?;
    drop(bytes);
    let mut run = Run { machine, base: Args::new(machine.address(&table)), dbs: (0..100).map(|_| None).collect() };
    let (databases, database_stats) = run.databases(index, pieces, allowed, dir, progress)?;
    let (plies, ply_stats) = if opening { run.placing(index, pieces, keep, progress)? } else { Default::default() };
    drop(run);
    drop(table);
    Ok(Solved { databases, database_stats, plies, ply_stats })
}

/// The loop's state: the machine, the arguments every launch shares, and the solved
/// databases in the machine's memory (by `10 a + b`).
struct Run<'m, M: Machine> {
    machine: &'m M,
    base: Args,
    dbs: Vec<Option<M::Buf>>,
}

impl<M: Machine> Run<'_, M> {
    /// Args with every solved database's address.
    fn args(&self) -> Args {
        let mut args = self.base;
        for (i, buf) in self.dbs.iter().enumerate() {
            args.db[i] = buf.as_ref().map_or(0, |b| self.machine.address(b));
        }
        args
    }

    /// The databases, as [`retro::solve`].
    fn databases(
        &mut self,
        index: &Index,
        pieces: u32,
        allowed: u64,
        dir: Option<&Path>,
        progress: &mut dyn FnMut(Event),
    ) -> Result<(Databases, Vec<DatabaseStats>), Error> {
        let mut dbs = Databases::new();
        let mut stats = Vec::new();
        let mut used = 0u64;
        for sides in retro::pairs(pieces) {
            let (a, b) = sides[0];
            for &(x, y) in &sides {
                used += index.slots(x, y);
            }
            if used > allowed {
                let what = format!("the Nine Men's Morris databases up to {a}-{b}");
                return Err(Error::Memory { what, needed: used, allowed });
            }
            let start = Instant::now();
            let (found, levels) = match retro::load_pair(dir, index, &sides)? {
                Some(found) => {
                    for (values, &(x, y)) in found.iter().zip(&sides) {
                        let mut buf = self.machine.alloc(values.len() as u64, &format!("the database {x}-{y}"))?;
                        self.machine.upload(&mut buf, values)?;
                        self.dbs[(10 * x + y) as usize] = Some(buf);
                    }
                    (found, 0)
                }
                None => {
                    let levels = self.pair(index, &sides)?;
                    let mut found = Vec::new();
                    for &(x, y) in &sides {
                        let buf = self.dbs[(10 * x + y) as usize].as_ref().expect("solved");
                        found.push(self.machine.download(buf, index.slots(x, y))?);
                    }
                    (found, levels)
                }
            };
            // Solved and copied back; the files are written after, as the CPU does.
            let seconds = if levels == 0 { 0.0 } else { start.elapsed().as_secs_f64() };
            if let (Some(dir), true) = (dir, levels > 0) {
                for (values, &(x, y)) in found.iter().zip(&sides) {
                    files::save(dir, x, y, values)?;
                }
            }
            for (values, &(x, y)) in found.into_iter().zip(&sides) {
                let s = retro::count(&values, x, y, index, levels, seconds);
                progress(Event::Database(&s));
                stats.push(s);
                dbs.insert(x, y, values);
            }
        }
        Ok((dbs, stats))
    }

    /// Solves one pair in the machine's memory (as `retro::Pair::run`); its levels.
    fn pair(&mut self, index: &Index, sides: &[(u32, u32)]) -> Result<u32, Error> {
        let mut captures = Vec::new();
        for &(a, b) in sides {
            let n = index.slots(a, b);
            let what = format!("the Nine Men's Morris database {a}-{b}");
            self.dbs[(10 * a + b) as usize] = Some(self.machine.alloc(n, &what)?);
            captures.push(self.machine.alloc(n, &format!("the best captures of {a}-{b}"))?);
        }
        let side_args = |run: &Self, s: usize| {
            let (a, b) = sides[s];
            let mut args = run.args();
            (args.a, args.b, args.slots) = (a, b, index.slots(a, b));
            args.values = args.db[(10 * a + b) as usize];
            args.captures = run.machine.address(&captures[s]);
            args
        };
        let mut last_capture = 0;
        for s in 0..sides.len() {
            last_capture = last_capture.max(self.machine.run(Kernel::Start, &side_args(self, s))?[2]);
        }
        let (mut quiet, mut n) = (0, 1u32);
        loop {
            if n > MAX_PLIES {
                return Err(Error::Unsupported(format!(
                    "a win of more than {MAX_PLIES} plies in the databases {sides:?} does not fit the one-byte values"
                )));
            }
            let target = n + 1;
            let (mut decided, mut checked) = (0, 0);
            for s in 0..sides.len() {
                let mut args = side_args(self, s);
                (args.frontier, args.target) = (n, target);
                let c = self.machine.run(Kernel::Level, &args)?;
                (decided, checked) = (decided + c[0], checked + c[1]);
                if target.is_multiple_of(2) {
                    decided += self.machine.run(Kernel::Captures, &args)?[0];
                }
            }
            if target % 2 == 1 && decided < checked {
                for s in 0..sides.len() {
                    self.machine.run(Kernel::Clear, &side_args(self, s))?;
                }
            }
            quiet = if decided == 0 { quiet + 1 } else { 0 };
            if quiet >= 2 && last_capture <= u64::from(target) {
                return Ok(n);
            }
            n += 1;
        }
    }

    /// The placing phase, as [`super::opening::solve`].
    fn placing(
        &mut self,
        index: &Index,
        k: u32,
        keep: &[u32],
        progress: &mut dyn FnMut(Event),
    ) -> Result<(BTreeMap<u32, Ply>, Vec<PlyStats>), Error> {
        let mut kept = BTreeMap::new();
        let mut stats = Vec::new();
        // The tables of the ply solved last, by 10 a + b.
        let mut next: Option<Vec<Option<M::Buf>>> = None;
        for t in (0..2 * k).rev() {
            let start = Instant::now();
            let (mover_hand, other_hand) = hands(k, t);
            let (mover_placed, other_placed) = (k - mover_hand, k - other_hand);
            let mut args = self.args();
            if let Some(tables) = &next {
                args.db = [0; 100];
                for (i, buf) in tables.iter().enumerate() {
                    args.db[i] = buf.as_ref().map_or(0, |b| self.machine.address(b));
                }
            }
            (args.mover_hand, args.other_hand) = (mover_hand, other_hand);
            let mut ply: Vec<Option<M::Buf>> = (0..100).map(|_| None).collect();
            let mut s = PlyStats { ply: t, positions: 0, wins: 0, losses: 0, draws: 0, seconds: 0.0 };
            let mut host_tables = BTreeMap::new();
            for a in 0..=mover_placed {
                for b in 0..=other_placed {
                    if a + mover_hand < 3 || b + other_hand < 3 {
                        continue;
                    }
                    let n = index.slots(a, b);
                    let buf = self.machine.alloc(n, &format!("the placing phase's ply {t}"))?;
                    let mut x = args;
                    (x.a, x.b, x.slots, x.values) = (a, b, n, self.machine.address(&buf));
                    if self.machine.run(Kernel::Place, &x)?[3] != 0 {
                        return Err(Error::Unsupported(format!(
                            "a placing-phase value at ply {t} is longer than the one-byte values hold"
                        )));
                    }
                    let [w, l, d, _] = self.machine.run(Kernel::Count, &x)?;
                    (s.wins, s.losses, s.draws) = (s.wins + w, s.losses + l, s.draws + d);
                    if keep.contains(&t) {
                        host_tables.insert((a, b), self.machine.download(&buf, n)?);
                    }
                    ply[(10 * a + b) as usize] = Some(buf);
                }
            }
            s.positions = s.wins + s.losses + s.draws;
            s.seconds = start.elapsed().as_secs_f64();
            progress(Event::Ply(&s));
            stats.push(s);
            if keep.contains(&t) {
                kept.insert(t, Ply::new(t, (mover_hand, other_hand), host_tables));
            }
            // The ply before this one reads only this one.
            next = Some(ply);
        }
        stats.reverse();
        Ok((kept, stats))
    }
}
