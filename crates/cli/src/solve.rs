//! `warpcheck solve nine-mens-morris`: the game solved by retrograde analysis (the
//! moving-phase databases, then the placing phase), with the value of the empty board,
//! of every first move, the won, lost and drawn counts per database and per ply, and
//! on request the value and moves of a given position.

use clap::Args;
use serde::Serialize;
use std::time::Instant;
use warpcheck_puzzle::morris::gpu::Machine;
use warpcheck_puzzle::morris::notation::{self, Given};
use warpcheck_puzzle::morris::{self, Event, Value};
use warpcheck_puzzle::Error;

use crate::backend::{note, Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::{json, progress};

/// `solve`.
#[derive(Args)]
pub struct SolveArgs {
    /// The game: `nine-mens-morris`.
    pub game: String,
    /// Pieces a side: 9 for Nine Men's Morris; 3 to 8 play the same rules on the same
    /// board with fewer pieces (and need only the smaller databases).
    #[arg(long, value_name = "K", default_value_t = 9)]
    pub pieces: u32,
    /// Also the value and the moves of this position: 24 cells `W`, `B` or `.` in the
    /// order a7 d7 g7 g4 g1 d1 a1 a4, b6 d6 f6 f4 f2 d2 b2 b4, c5 d5 e5 e4 e3 d3 c3 c4,
    /// then `w` or `b` to move, then in the placing phase the pieces in hand of white
    /// and black, e.g. `"W....... ........ .......B w 8 8"`.
    #[arg(long, value_name = "POSITION")]
    pub position: Option<String>,
    /// A directory for the moving-phase databases: those found there are read instead
    /// of solved, those solved are written there (one file per database; about 9.4 GB
    /// for all of Nine Men's Morris). A solve that stops resumes from them, and a
    /// position is looked up without solving the databases again.
    #[arg(long, value_name = "DIR")]
    pub databases: Option<std::path::PathBuf>,
    /// Solve the moving-phase databases only (with `--databases`, to prepare them in
    /// one or several runs); no placing phase, no start value.
    #[arg(long)]
    pub databases_only: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Memory the databases may take, e.g. 24G (default: 3/4 of the available memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    pub memory: Option<u64>,
    /// Where to run: `cpu`, `gpu` or `auto` (the GPU when a device is present). The
    /// GPU holds every database in device memory (9.2 GB for Nine Men's Morris) and
    /// two plies of the placing phase (up to 14 GB).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A value in the JSON report.
#[derive(Serialize)]
struct ValueReport {
    /// `win`, `loss` or `draw`, for the side to move (for a move: the side making it).
    value: &'static str,
    /// Plies to the end under perfect play; `null` for a draw.
    plies: Option<u32>,
}

impl From<Value> for ValueReport {
    fn from(v: Value) -> Self {
        let plies = match v {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        };
        ValueReport { value: v.outcome(), plies }
    }
}

#[derive(Serialize)]
struct MoveReport {
    #[serde(rename = "move")]
    text: String,
    #[serde(flatten)]
    value: ValueReport,
}

#[derive(Serialize)]
struct DatabaseReport {
    /// Pieces of the side to move and of the other.
    pieces: [u32; 2],
    boards: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    longest: u32,
    seconds: f64,
}

#[derive(Serialize)]
struct PlyReport {
    ply: u32,
    positions: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct PositionReport {
    position: String,
    #[serde(flatten)]
    value: ValueReport,
    moves: Vec<MoveReport>,
}

/// The `--json` report of `solve`.
#[derive(Serialize)]
struct SolveReport {
    game: &'static str,
    pieces: u32,
    /// The empty board, white to move; `null` with `--databases-only`.
    start: Option<ValueReport>,
    /// White's first moves, up to symmetry, best first; `null` with `--databases-only`.
    first_moves: Option<Vec<MoveReport>>,
    databases: Vec<DatabaseReport>,
    plies: Vec<PlyReport>,
    position: Option<PositionReport>,
    seconds: f64,
    /// `cpu` or `gpu`.
    backend: &'static str,
    /// The GPU's name; `null` on the CPU.
    device: Option<String>,
    threads: usize,
}

fn error(e: Error) -> CliError {
    match e {
        Error::Memory { ref what, .. } if what.ends_with("in device memory") => {
            CliError::Resource(format!("{e} (use --backend cpu, or solve fewer --pieces)"))
        }
        Error::Memory { .. } => CliError::Resource(format!("{e} (set --memory, or solve fewer --pieces)")),
        _ => CliError::Input(e.to_string()),
    }
}

fn moves(solution: &morris::Solution, given: &Given, distinct: bool) -> Result<Vec<MoveReport>, CliError> {
    let index = morris::index::Index::get();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (m, v) in solution.moves(given).map_err(error)? {
        if distinct {
            let after = (given.position.mover & !m.from.map_or(0, |p| 1 << p)) | 1 << m.to;
            let key = index.rank(after, given.position.other & !m.removed.map_or(0, |r| 1 << r));
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
        }
        out.push(MoveReport { text: notation::move_text(&m), value: v.into() });
    }
    Ok(out)
}

/// Runs `solve`.
pub fn run(args: SolveArgs) -> Result<Verdict, CliError> {
    if args.game != "nine-mens-morris" {
        return Err(CliError::Input(format!("unknown game '{}': expected nine-mens-morris", args.game)));
    }
    let given = args.position.as_deref().map(notation::parse).transpose().map_err(error)?;
    let threads = crate::thread_count(args.threads);
    let memory = args.memory.unwrap_or_else(|| warpcheck_store::memory::available().unwrap_or(8 << 30) / 4 * 3);
    let line = progress::ProgressLine::new(args.quiet, None);
    let started = Instant::now();
    let pool = crate::thread_pool(threads)?;
    let mut placement = args.backend.place(args.device, Ok(()))?;
    let mut gpu = None;
    if placement == Placement::Gpu {
        match morris::gpu::device::Gpu::open(args.device) {
            Ok(g) => gpu = Some(g),
            // Under `auto`, a GPU that cannot start (no NVRTC, a failed compile) leaves
            // the solve to the CPU.
            Err(Error::Gpu(why)) if args.backend == Backend::Auto => {
                note(format!("GPU: {why}; running on the CPU"));
                placement = Placement::Cpu;
            }
            Err(e) => return Err(error(e)),
        }
    }
    let report = |e: Event| match e {
        Event::Database(s) => line.message(format!(
            "database {}-{}: {} boards, {:.1} s",
            s.mover,
            s.other,
            s.boards,
            started.elapsed().as_secs_f64()
        )),
        Event::Ply(s) => line.message(format!(
            "placing phase, ply {}: {} positions, {:.1} s",
            s.ply,
            s.positions,
            started.elapsed().as_secs_f64()
        )),
    };
    let (dir, opening) = (args.databases.as_deref(), !args.databases_only);
    let solution = pool
        .install(|| match &gpu {
            Some(g) => morris::solve_on(g, args.pieces, memory, dir, given.as_ref(), opening, report),
            None => morris::solve(args.pieces, memory, dir, given.as_ref(), opening, report),
        })
        .map_err(error)?;
    line.finish();
    let empty = Given {
        position: morris::rules::Position { mover: 0, other: 0, mover_hand: args.pieces, other_hand: args.pieces },
        white_to_move: true,
    };
    let position = match &given {
        Some(g) => Some(PositionReport {
            position: notation::format(g),
            value: solution.value(g).map_err(error)?.into(),
            moves: moves(&solution, g, false)?,
        }),
        None => None,
    };
    let out = SolveReport {
        game: "nine-mens-morris",
        pieces: args.pieces,
        start: solution.start().map(ValueReport::from),
        first_moves: if args.databases_only { None } else { Some(moves(&solution, &empty, true)?) },
        databases: solution
            .database_stats
            .iter()
            .map(|s| DatabaseReport {
                pieces: [s.mover, s.other],
                boards: s.boards,
                wins: s.wins,
                losses: s.losses,
                draws: s.draws,
                longest: s.longest,
                seconds: s.seconds,
            })
            .collect(),
        plies: solution
            .ply_stats
            .iter()
            .map(|s| PlyReport {
                ply: s.ply,
                positions: s.positions,
                wins: s.wins,
                losses: s.losses,
                draws: s.draws,
                seconds: s.seconds,
            })
            .collect(),
        position,
        seconds: started.elapsed().as_secs_f64(),
        backend: placement.name(),
        device: gpu.as_ref().map(|g| g.name()),
        threads,
    };
    if args.json {
        json::print(&out);
        return Ok(Verdict::Holds);
    }
    print_text(&out);
    Ok(Verdict::Holds)
}

fn value_text(v: &ValueReport) -> String {
    match v.plies {
        Some(d) => format!("{} in {d} {}", v.value, if d == 1 { "ply" } else { "plies" }),
        None => v.value.to_string(),
    }
}

fn print_text(out: &SolveReport) {
    let name = if out.pieces == 9 {
        "Nine Men's Morris".to_string()
    } else {
        format!("Morris with {} pieces a side", out.pieces)
    };
    println!("game:         {name}");
    if let (Some(start), Some(firsts)) = (&out.start, &out.first_moves) {
        println!("start:        {} for white (the empty board, white to move)", value_text(start));
        let firsts: Vec<String> = firsts.iter().map(|m| format!("{} {}", m.text, value_text(&m.value))).collect();
        println!("first moves:  {} (up to symmetry)", firsts.join(", "));
    }
    println!("databases (moving and jumping phases; pieces of the side to move - of the other):");
    println!(
        "  {:>5} {:>14} {:>14} {:>14} {:>14} {:>8} {:>9}",
        "db", "boards", "wins", "losses", "draws", "longest", "seconds"
    );
    for d in &out.databases {
        println!(
            "  {:>5} {:>14} {:>14} {:>14} {:>14} {:>8} {:>9.2}",
            format!("{}-{}", d.pieces[0], d.pieces[1]),
            d.boards,
            d.wins,
            d.losses,
            d.draws,
            d.longest,
            d.seconds
        );
    }
    if !out.plies.is_empty() {
        println!("placing phase (values for the side to move):");
    }
    if !out.plies.is_empty() {
        println!("  {:>5} {:>14} {:>14} {:>14} {:>14} {:>9}", "ply", "positions", "wins", "losses", "draws", "seconds");
    }
    for p in &out.plies {
        println!(
            "  {:>5} {:>14} {:>14} {:>14} {:>14} {:>9.2}",
            p.ply, p.positions, p.wins, p.losses, p.draws, p.seconds
        );
    }
    if let Some(p) = &out.position {
        println!("position:     {}", p.position);
        println!("value:        {} for the side to move", value_text(&p.value));
        if p.moves.is_empty() {
            println!("moves:        none (the side to move has lost)");
        }
        // One line per value, best first.
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for m in &p.moves {
            let v = value_text(&m.value);
            match groups.last_mut() {
                Some((last, list)) if *last == v => list.push(&m.text),
                _ => groups.push((v, vec![&m.text])),
            }
        }
        for (i, (v, list)) in groups.iter().enumerate() {
            println!("{:14}{v}: {}", if i == 0 { "moves:" } else { "" }, list.join(" "));
        }
    }
    match &out.device {
        Some(device) => println!("time:         {:.2} s on the GPU ({device})", out.seconds),
        None => println!("time:         {:.2} s on {} thread(s)", out.seconds, out.threads),
    }
}
