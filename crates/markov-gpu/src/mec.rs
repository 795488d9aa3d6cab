//! The MEC decomposition of an MDP (the bottom SCCs of a DTMC or CTMC) on the GPU,
//! after Wijs, Katoen and Bošnački (digest 001): repeated SCC decompositions of the
//! candidates along the choices that stay inside them, with the attractor of the
//! states left without such a choice removed, all as label sweeps over the model's
//! rows on the device (mec.cu says what each kernel does and why the labels never
//! collide). The first round splits the whole model by forward-backward search from
//! one pivot (the last state, deep in the breadth-first order, most likely in the
//! giant SCC that colouring would take a long time to agree on); later rounds
//! decompose only the candidates that need it (the rests of searches, and SCCs that
//! lost a choice or a state) by colouring (the largest state reaching a state, pushed
//! forward) and a backward search from each colour's root. Backward searches run over
//! predecessor lists built on the device once (counted, summed on the host,
//! scattered).
//!
//! The result is [`Mecs`], equal to the CPU's `maximal_end_components` (the tests hold
//! it to that on the host build of mec.cu).

use std::time::Instant;

use warpcheck_markov::{Mecs, SparseModel};

use crate::lanes::{Lanes, MeArgs, MecKernel};
use crate::{bytes_of_u32, bytes_of_u64, RESERVE};

/// Launches enqueued per round trip at most while running a kernel to its fixpoint
/// (the first round trip enqueues 4, each next one twice as many).
const MAX_BATCH: u32 = 64;

/// What the decomposition did on the device.
#[derive(Clone, Debug, Default)]
pub struct GpuMecStats {
    /// Rounds: disabling, then forward-backward (the first) or colouring and marking.
    pub rounds: u32,
    /// Kernel launches that did work (not counting the guarded ones that returned).
    pub launches: u64,
    /// Uploading the model's offsets and columns, building the predecessor lists.
    pub upload_seconds: f64,
    /// The rounds on the device.
    pub device_seconds: f64,
    /// Downloading the labels and live rows and assembling the result.
    pub assemble_seconds: f64,
}

/// Device bytes of the decomposition of a model with `states`, `rows` and `entries`.
pub fn device_bytes(states: u64, rows: u64, entries: u64) -> u64 {
    16 * (states + 1) + 8 * (rows + 1) + 12 * entries + 15 * states + rows + 4 * u64::from(MAX_BATCH)
}

/// The MECs of `model` on `lanes` (for a DTMC or CTMC, whose states have one row
/// each: its bottom SCCs). Errors: a model of 2^31 states or more (labels use the top
/// bit) or 2^32 rows or more (the predecessor lists name rows in 32 bits), too little
/// device memory, or the lanes' own errors.
pub fn maximal_end_components<L: Lanes>(lanes: &L, model: &SparseModel) -> Result<(Mecs, GpuMecStats), String> {
    let n = model.states();
    if n >= 1 << 31 {
        return Err(format!("the GPU MEC decomposition takes models of fewer than 2^31 states; this one has {n}"));
    }
    let (rows, entries) = (model.choices(), model.columns.len() as u64);
    if rows > u64::from(u32::MAX) {
        return Err(format!("the GPU MEC decomposition takes models of fewer than 2^32 choices; this one has {rows}"));
    }
    let need = device_bytes(n as u64, rows, entries);
    if let Some(free) = lanes.free_memory() {
        if need + RESERVE > free {
            return Err(format!(
                "the MEC decomposition of {n} states, {rows} choices and {entries} transitions needs about {need} \
                 bytes of device memory, {free} are free (use --backend cpu)"
            ));
        }
    }
    let mut stats = GpuMecStats::default();
    if n == 0 {
        return Ok((Mecs::from_labels(model, &[], |_| false), stats));
    }
    let clock = Instant::now();
    let groups = lanes.upload(&bytes_of_u64(model.row_groups.iter().map(|&x| x as usize)))?;
    let starts = lanes.upload(&bytes_of_u64(model.row_starts.iter().map(|&x| x as usize)))?;
    let columns = lanes.upload(&bytes_of_u32(&model.columns))?;
    let label = lanes.zeros(4 * n)?;
    let colour = lanes.zeros(4 * n)?;
    let mut active = lanes.zeros(n)?;
    let mut mark = lanes.zeros(n)?;
    let live = lanes.upload(&vec![1u8; rows as usize])?;
    let psrc = lanes.zeros(4 * entries as usize)?;
    let prow = lanes.zeros(4 * entries as usize)?;
    let mut cursor = lanes.zeros(4 * n)?;
    let dirty = lanes.zeros(n)?;
    let mut flags = lanes.zeros(4 * MAX_BATCH as usize)?;
    let mut args = MeArgs {
        groups: lanes.addr(&groups),
        starts: lanes.addr(&starts),
        columns: lanes.addr(&columns),
        label: lanes.addr(&label),
        colour: lanes.addr(&colour),
        active: lanes.addr(&active),
        mark: lanes.addr(&mark),
        live: lanes.addr(&live),
        poffs: 0,
        psrc: lanes.addr(&psrc),
        prow: lanes.addr(&prow),
        cursor: lanes.addr(&cursor),
        dirty: lanes.addr(&dirty),
        flags: lanes.addr(&flags),
        n: n as u64,
        pivot: n as u64 - 1,
        slot: 0,
        guard: 0,
    };
    let mut run = Runner { lanes, flags: &mut flags, launches: 0 };
    // The predecessor lists: counts, their prefix sums, the entries placed.
    run.launch(MecKernel::Indegree, &args)?;
    let mut counts = vec![0u8; 4 * n];
    lanes.download(&cursor, &mut counts)?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0usize);
    for c in counts.chunks_exact(4) {
        offsets.push(offsets[offsets.len() - 1] + u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    }
    drop(counts);
    let poffs = lanes.upload(&bytes_of_u64(offsets))?;
    args.poffs = lanes.addr(&poffs);
    lanes.write(&mut cursor, 0, &vec![0u8; 4 * n])?;
    run.launch(MecKernel::Scatter, &args)?;
    lanes.download(run.flags, &mut [])?;
    drop(cursor);
    stats.upload_seconds = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    // The first round: one candidate, split by forward-backward from the pivot.
    stats.rounds = 1;
    run.fixpoint(MecKernel::Disable, &mut args)?;
    run.once(MecKernel::FbStart, &mut args)?;
    run.fixpoint(MecKernel::Colour, &mut args)?;
    let pivot = args.pivot as usize;
    lanes.write(&mut mark, pivot, &[1])?;
    lanes.write(&mut active, pivot, &[1])?;
    run.fixpoint(MecKernel::Mark, &mut args)?;
    let mut rest = run.once(MecKernel::FbSplit, &mut args)?;
    loop {
        let disabled = run.fixpoint(MecKernel::Disable, &mut args)?;
        if !disabled && !rest {
            break;
        }
        stats.rounds += 1;
        run.once(MecKernel::Start, &mut args)?;
        run.fixpoint(MecKernel::Colour, &mut args)?;
        run.once(MecKernel::Root, &mut args)?;
        run.fixpoint(MecKernel::Mark, &mut args)?;
        rest = run.once(MecKernel::Relabel, &mut args)?;
    }
    stats.launches = run.launches;
    stats.device_seconds = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let mut labels = vec![0u8; 4 * n];
    lanes.download(&label, &mut labels)?;
    let labels: Vec<u32> = labels.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let mut inside = vec![0u8; rows as usize];
    lanes.download(&live, &mut inside)?;
    // Rows of removed states were disabled before their state was removed.
    let mecs = Mecs::from_labels(model, &labels, |r| inside[r as usize] == 1);
    stats.assemble_seconds = clock.elapsed().as_secs_f64();
    Ok((mecs, stats))
}

/// Launches of mec.cu's kernels with the flags of a batch.
struct Runner<'a, L: Lanes> {
    lanes: &'a L,
    flags: &'a mut L::Buf,
    launches: u64,
}

impl<L: Lanes> Runner<'_, L> {
    fn launch(&self, kernel: MecKernel, args: &MeArgs) -> Result<(), String> {
        // SAFETY: every address in `args` is of a buffer of `maximal_end_components`
        // that lives while the kernels run: the offsets (`n + 1` and `rows + 1` words),
        // the columns, the per-state arrays of `n` entries, the per-row flags of `rows`
        // bytes, the dirty marks (`n` bytes: labels are states), the predecessor lists (`n + 1` offsets, set before any kernel but
        // me_indegree reads them, and one source and row per entry), the cursor (`n`
        // words, read by me_indegree and me_scatter only, before it is freed) and the
        // batch flags of `MAX_BATCH` words, which `slot < MAX_BATCH` indexes; the
        // kernels read the model within its offsets.
        unsafe { self.lanes.launch_mec(kernel, args) }
    }

    /// One launch; whether it changed something.
    fn once(&mut self, kernel: MecKernel, args: &mut MeArgs) -> Result<bool, String> {
        self.lanes.write(self.flags, 0, &[0; 4])?;
        args.slot = 0;
        args.guard = 0;
        self.launch(kernel, args)?;
        self.launches += 1;
        let mut flag = [0u8; 4];
        self.lanes.download(self.flags, &mut flag)?;
        Ok(flag != [0; 4])
    }

    /// Launches until one changes nothing, in batches of guarded launches; whether the
    /// first changed something.
    fn fixpoint(&mut self, kernel: MecKernel, args: &mut MeArgs) -> Result<bool, String> {
        let mut batch = 4u32;
        let mut first = true;
        loop {
            self.lanes.write(self.flags, 0, &vec![0u8; 4 * batch as usize])?;
            for slot in 0..batch {
                args.slot = slot;
                args.guard = u32::from(slot > 0);
                self.launch(kernel, args)?;
            }
            let mut bytes = vec![0u8; 4 * batch as usize];
            self.lanes.download(self.flags, &mut bytes)?;
            let raised: Vec<bool> = bytes.chunks_exact(4).map(|b| b != [0; 4]).collect();
            let done = raised.iter().position(|&r| !r);
            self.launches += done.map_or(u64::from(batch), |k| k as u64 + 1);
            let changed = raised[0];
            if done.is_some() {
                return Ok(changed || !first);
            }
            first = false;
            batch = (batch * 2).min(MAX_BATCH);
        }
    }
}
